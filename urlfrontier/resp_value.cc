#include "urlfrontier/resp_value.h"

#include <hiredis/read.h>

#include <charconv>

#include "protocol/reply_writer.h"

namespace frontier::urlfrontier {
namespace {

// hiredis builds a reply tree through these callbacks; the tree is built
// of RespValue directly, so no hiredis object outlives Next().
RespValue* Attach(const redisReadTask* task, RespValue value) {
  auto* node = new RespValue(std::move(value));
  if (task->parent != nullptr) {
    auto* parent = static_cast<RespValue*>(task->parent->obj);
    parent->elements[static_cast<size_t>(task->idx)] = std::move(*node);
    delete node;
    return &parent->elements[static_cast<size_t>(task->idx)];
  }
  return node;
}

void* CreateString(const redisReadTask* task, char* str, size_t len) {
  RespValue v;
  v.type = task->type == REDIS_REPLY_ERROR    ? RespValue::Type::kError
           : task->type == REDIS_REPLY_STATUS ? RespValue::Type::kStatus
                                              : RespValue::Type::kString;
  v.str.assign(str, len);
  return Attach(task, std::move(v));
}

void* CreateArray(const redisReadTask* task, int elements) {
  RespValue v;
  v.type = RespValue::Type::kArray;
  v.elements.resize(static_cast<size_t>(elements));
  return Attach(task, std::move(v));
}

void* CreateInteger(const redisReadTask* task, long long value) {
  RespValue v;
  v.type = RespValue::Type::kInteger;
  v.integer = value;
  return Attach(task, std::move(v));
}

void* CreateNil(const redisReadTask* task) { return Attach(task, RespValue()); }

void FreeObject(void* obj) {
  // Only a root is ever handed back to be freed (children live inside it).
  delete static_cast<RespValue*>(obj);
}

redisReplyObjectFunctions kFunctions = {CreateString, CreateArray,
                                        CreateInteger, CreateNil, FreeObject};

}  // namespace

const RespValue* RespValue::Field(std::string_view name) const {
  if (type != Type::kArray) return nullptr;
  for (size_t i = 0; i + 1 < elements.size(); i += 2) {
    if (elements[i].str == name) return &elements[i + 1];
  }
  return nullptr;
}

std::optional<int64_t> RespValue::AsInt() const {
  if (type == Type::kInteger) return integer;
  if (type != Type::kString || str.empty()) return std::nullopt;
  int64_t n = 0;
  const char* end = str.data() + str.size();
  auto [ptr, ec] = std::from_chars(str.data(), end, n);
  if (ec != std::errc() || (ptr != end && *ptr != '.')) return std::nullopt;
  return n;
}

std::string EncodeCommand(const std::vector<std::string>& args) {
  // A request is an array of bulk strings, the shape ReplyWriter writes.
  std::string out;
  ReplyWriter writer(&out);
  writer.Array(args.size());
  for (const std::string& arg : args) writer.Bulk(arg);
  return out;
}

struct RespReplyReader::Impl {
  redisReader* reader = nullptr;
};

RespReplyReader::RespReplyReader() : impl_(std::make_unique<Impl>()) {
  impl_->reader = redisReaderCreateWithFunctions(&kFunctions);
  ok_ = impl_->reader != nullptr;
}

RespReplyReader::~RespReplyReader() {
  if (impl_->reader != nullptr) redisReaderFree(impl_->reader);
}

bool RespReplyReader::Feed(std::string_view bytes) {
  if (!ok_) return false;
  ok_ = redisReaderFeed(impl_->reader, bytes.data(), bytes.size()) == REDIS_OK;
  return ok_;
}

std::optional<RespValue> RespReplyReader::Next() {
  if (!ok_) return std::nullopt;
  void* reply = nullptr;
  if (redisReaderGetReply(impl_->reader, &reply) != REDIS_OK) {
    ok_ = false;
    return std::nullopt;
  }
  if (reply == nullptr) return std::nullopt;
  std::unique_ptr<RespValue> root(static_cast<RespValue*>(reply));
  return std::move(*root);
}

}  // namespace frontier::urlfrontier
