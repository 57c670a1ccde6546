// ReplyWriter implementation: RESP2 framing only, no knowledge of commands.
#include "protocol/reply_writer.h"

#include <charconv>

namespace frontier {
namespace {

// A status line ends at the first CR or LF, so one inside the text would
// let the rest be read as another reply. Redis replaces them the same way.
void AppendLine(std::string* out, char type, std::string_view text) {
  out->push_back(type);
  const size_t start = out->size();
  out->append(text);
  for (size_t i = start; i < out->size(); ++i) {
    if ((*out)[i] == '\r' || (*out)[i] == '\n') (*out)[i] = ' ';
  }
  out->append("\r\n");
}

template <typename Integer>
void AppendNumberLine(std::string* out, char type, Integer n) {
  char digits[24];  // 20 digits of a 64-bit value, a sign, and spare
  const std::to_chars_result r =
      std::to_chars(digits, digits + sizeof(digits), n);
  out->push_back(type);
  out->append(digits, r.ptr);
  out->append("\r\n");
}

}  // namespace

void ReplyWriter::Simple(std::string_view s) { AppendLine(out_, '+', s); }

void ReplyWriter::Error(std::string_view msg) { AppendLine(out_, '-', msg); }

void ReplyWriter::Int(int64_t n) { AppendNumberLine(out_, ':', n); }

void ReplyWriter::Bulk(std::string_view s) {
  AppendNumberLine(out_, '$', s.size());
  out_->append(s);
  out_->append("\r\n");
}

void ReplyWriter::Null() { out_->append("$-1\r\n"); }

void ReplyWriter::NullArray() { out_->append("*-1\r\n"); }

void ReplyWriter::Array(size_t n) { AppendNumberLine(out_, '*', n); }

}  // namespace frontier
