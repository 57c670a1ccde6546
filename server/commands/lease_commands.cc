// Lease control (issue 8 §4): a worker keeps a lease for a long fetch
// (EXTEND) or hands it back without using it (RELEASE).
#include <array>
#include <optional>
#include <string_view>

#include "server/args.h"
#include "server/commands/commands.h"
#include "server/errors.h"
#include "server/reply.h"

namespace frontier::commands {

// EXTEND url secs
void Extend(CommandContext& ctx) {
  std::optional<int64_t> lease_ms = ParseDurationMs(ctx.argv[2]);
  if (!lease_ms || *lease_ms <= 0) {
    ctx.reply.Error(errors::kExtendSeconds);
    return;
  }
  ReplyBool(ctx.reply, ctx.frontier.Extend(ctx.argv[1], *lease_ms, ctx.now_ms));
}

// RELEASE url [DELAY secs]
void Release(CommandContext& ctx) {
  static constexpr std::array<std::string_view, 1> kNames = {"DELAY"};
  std::array<std::optional<std::string_view>, 1> values;
  if (!ParseNamedOptions(ctx.argv.subspan(2), kNames, values)) {
    ctx.reply.Error(errors::kSyntax);
    return;
  }
  int64_t delay_ms = 0;
  if (values[0]) {
    std::optional<int64_t> ms = ParseDurationMs(*values[0]);
    if (!ms || *ms < 0) {
      ctx.reply.Error(errors::kDelaySeconds);
      return;
    }
    delay_ms = *ms;
  }
  ReplyBool(ctx.reply, ctx.frontier.Release(ctx.argv[1], delay_ms, ctx.now_ms));
}

}  // namespace frontier::commands
