// Retry-After values: see retry_after.h.
#include "policy/retry_after.h"

#include <array>
#include <limits>

namespace frontier::policy {
namespace {

char Lower(char c) { return (c >= 'A' && c <= 'Z') ? c - 'A' + 'a' : c; }

// A cursor over the date being read; each reader consumes only on success.
class Reader {
 public:
  explicit Reader(std::string_view s) : s_(s) {}

  bool done() const { return s_.empty(); }

  bool Literal(std::string_view lit) {
    if (s_.size() < lit.size()) return false;
    for (size_t i = 0; i < lit.size(); ++i) {
      if (Lower(s_[i]) != Lower(lit[i])) return false;
    }
    s_.remove_prefix(lit.size());
    return true;
  }

  // Exactly `n` digits.
  bool Digits(int n, int* value) {
    if (s_.size() < static_cast<size_t>(n)) return false;
    int v = 0;
    for (int i = 0; i < n; ++i) {
      if (s_[i] < '0' || s_[i] > '9') return false;
      v = v * 10 + (s_[i] - '0');
    }
    s_.remove_prefix(n);
    *value = v;
    return true;
  }

  // One of `names` (longest first where one is a prefix of another);
  // sets its index.
  template <size_t N>
  bool OneOf(const std::array<std::string_view, N>& names, int* index) {
    for (size_t i = 0; i < N; ++i) {
      if (Literal(names[i])) {
        *index = static_cast<int>(i);
        return true;
      }
    }
    return false;
  }

 private:
  std::string_view s_;
};

constexpr std::array<std::string_view, 12> kMonths = {
    "Jan", "Feb", "Mar", "Apr", "May", "Jun",
    "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
constexpr std::array<std::string_view, 7> kDays = {"Mon", "Tue", "Wed", "Thu",
                                                   "Fri", "Sat", "Sun"};
constexpr std::array<std::string_view, 7> kLongDays = {
    "Monday", "Tuesday",  "Wednesday", "Thursday",
    "Friday", "Saturday", "Sunday"};

bool IsLeap(int y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

int DaysInMonth(int year, int month) {  // month 1..12
  static constexpr int kDaysIn[] = {31, 28, 31, 30, 31, 30,
                                    31, 31, 30, 31, 30, 31};
  return month == 2 && IsLeap(year) ? 29 : kDaysIn[month - 1];
}

// Days from 1970-01-01 to the given proleptic Gregorian date.
int64_t DaysFromCivil(int64_t y, int m, int d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const int64_t yoe = y - era * 400;
  const int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

int YearOf(int64_t unix_s) {
  // Good enough for the century rule: walk from an estimate.
  int y = static_cast<int>(1970 + unix_s / 31556952);
  while (DaysFromCivil(y, 1, 1) * 86400 > unix_s) --y;
  while (DaysFromCivil(y + 1, 1, 1) * 86400 <= unix_s) ++y;
  return y;
}

struct DateTime {
  int year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0;
};

bool ReadTime(Reader& r, DateTime* t) {
  return r.Digits(2, &t->hour) && r.Literal(":") && r.Digits(2, &t->minute) &&
         r.Literal(":") && r.Digits(2, &t->second);
}

std::optional<int64_t> ToUnix(const DateTime& t) {
  if (t.month < 1 || t.month > 12 || t.day < 1 ||
      t.day > DaysInMonth(t.year, t.month) || t.hour > 23 || t.minute > 59 ||
      t.second > 60) {
    return std::nullopt;
  }
  return DaysFromCivil(t.year, t.month, t.day) * 86400 + t.hour * 3600 +
         t.minute * 60 + t.second;
}

std::optional<int64_t> ImfFixdate(std::string_view value) {
  Reader r(value);
  DateTime t;
  int ignored = 0;
  if (r.OneOf(kDays, &ignored) && r.Literal(", ") && r.Digits(2, &t.day) &&
      r.Literal(" ") && r.OneOf(kMonths, &t.month) && r.Literal(" ") &&
      r.Digits(4, &t.year) && r.Literal(" ") && ReadTime(r, &t) &&
      r.Literal(" GMT") && r.done()) {
    ++t.month;
    return ToUnix(t);
  }
  return std::nullopt;
}

std::optional<int64_t> Rfc850(std::string_view value, int64_t now_unix_s) {
  Reader r(value);
  DateTime t;
  int ignored = 0;
  int yy = 0;
  if (r.OneOf(kLongDays, &ignored) && r.Literal(", ") && r.Digits(2, &t.day) &&
      r.Literal("-") && r.OneOf(kMonths, &t.month) && r.Literal("-") &&
      r.Digits(2, &yy) && r.Literal(" ") && ReadTime(r, &t) &&
      r.Literal(" GMT") && r.done()) {
    ++t.month;
    // The year ending in yy that is at most 50 years after now.
    const int now_year = YearOf(now_unix_s);
    int year = now_year - now_year % 100 + yy;
    if (year > now_year + 50) year -= 100;
    t.year = year;
    return ToUnix(t);
  }
  return std::nullopt;
}

std::optional<int64_t> Asctime(std::string_view value) {
  Reader r(value);
  DateTime t;
  int ignored = 0;
  if (!r.OneOf(kDays, &ignored) || !r.Literal(" ") ||
      !r.OneOf(kMonths, &t.month) || !r.Literal(" ")) {
    return std::nullopt;
  }
  if (r.Literal(" ")) {  // a day below 10 is space-padded
    if (!r.Digits(1, &t.day)) return std::nullopt;
  } else if (!r.Digits(2, &t.day)) {
    return std::nullopt;
  }
  if (r.Literal(" ") && ReadTime(r, &t) && r.Literal(" ") &&
      r.Digits(4, &t.year) && r.done()) {
    ++t.month;
    return ToUnix(t);
  }
  return std::nullopt;
}

}  // namespace

std::optional<int64_t> ParseHttpDate(std::string_view value,
                                     int64_t now_unix_s) {
  if (auto t = ImfFixdate(value)) return t;
  if (auto t = Rfc850(value, now_unix_s)) return t;
  return Asctime(value);
}

std::optional<int64_t> RetryAfterDelayMs(std::string_view value,
                                         int64_t now_unix_ms) {
  while (!value.empty() && (value.front() == ' ' || value.front() == '\t')) {
    value.remove_prefix(1);
  }
  while (!value.empty() && (value.back() == ' ' || value.back() == '\t')) {
    value.remove_suffix(1);
  }
  if (value.empty()) return std::nullopt;

  constexpr int64_t kMaxSeconds = std::numeric_limits<int64_t>::max() / 1000;
  if (value.find_first_not_of("0123456789") == std::string_view::npos) {
    int64_t seconds = 0;
    for (char c : value) {
      seconds = seconds > (kMaxSeconds - 9) / 10 ? kMaxSeconds
                                                 : seconds * 10 + (c - '0');
    }
    return seconds * 1000;
  }
  const int64_t now_s =
      now_unix_ms >= 0 ? now_unix_ms / 1000 : -((-now_unix_ms + 999) / 1000);
  const std::optional<int64_t> date = ParseHttpDate(value, now_s);
  if (!date) return std::nullopt;
  const int64_t date_ms = *date * 1000;
  return date_ms > now_unix_ms ? date_ms - now_unix_ms : 0;
}

}  // namespace frontier::policy
