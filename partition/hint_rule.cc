#include "partition/hint_rule.h"

namespace frontier::partition {

std::string_view AdviceName(Advice advice) {
  switch (advice) {
    case Advice::kHurryUp:
      return "hurry-up";
    case Advice::kSteady:
      return "steady";
    case Advice::kSlowDown:
      return "slow-down";
  }
  return "steady";
}

Advice Advise(const HintInputs& in) {
  if ((in.waiting > 0 && in.ready_sites == 0) || in.leased > in.capacity) {
    return Advice::kSlowDown;
  }
  if (in.ready_sites > 0 && in.waiting == 0 &&
      4 * in.leased < 3 * in.capacity) {
    return Advice::kHurryUp;
  }
  return Advice::kSteady;
}

}  // namespace frontier::partition
