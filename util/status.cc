#include "util/status.h"

namespace frontier {

std::string Status::ToString() const {
  const char* prefix = "";
  switch (code_) {
    case Code::kOk:
      return "OK";
    case Code::kInvalidArgument:
      prefix = "Invalid argument: ";
      break;
    case Code::kNotFound:
      prefix = "Not found: ";
      break;
    case Code::kIOError:
      prefix = "IO error: ";
      break;
    case Code::kCorruption:
      prefix = "Corruption: ";
      break;
    case Code::kBusy:
      prefix = "Busy: ";
      break;
    case Code::kUnavailable:
      prefix = "Unavailable: ";
      break;
    case Code::kReadOnly:
      prefix = "Read-only: ";
      break;
    case Code::kNoReplicas:
      prefix = "No replicas: ";
      break;
    case Code::kNotAcknowledged:
      prefix = "Not acknowledged: ";
      break;
    case Code::kTryAgain:
      prefix = "Try again: ";
      break;
  }
  return prefix + message_;
}

}  // namespace frontier
