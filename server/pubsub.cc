#include "server/pubsub.h"

#include <algorithm>
#include <utility>

#include "protocol/reply_writer.h"
#include "server/glob.h"

namespace frontier {
namespace {

// Adds `client` to the subscribers of `name` in `map`.
template <typename Map>
void AddTo(Map& map, std::string_view name, uint64_t client) {
  auto it = map.find(name);
  if (it == map.end()) {
    it = map.emplace(std::string(name), typename Map::mapped_type{}).first;
  }
  it->second.insert(client);
}

// Removes `client` from the subscribers of `name` in `map`, and `name`
// once nobody is left.
template <typename Map>
void RemoveFrom(Map& map, std::string_view name, uint64_t client) {
  auto it = map.find(name);
  if (it == map.end()) return;
  it->second.erase(client);
  if (it->second.empty()) map.erase(it);
}

}  // namespace

size_t PubSub::Publish(std::string_view channel, std::string_view message) {
  size_t receivers = 0;
  publishing_ = true;
  // The bytes are the same for every subscriber of the channel: built once.
  if (auto it = channels_.find(channel); it != channels_.end()) {
    std::string resp;
    ReplyWriter w(&resp);
    w.Array(3);
    w.Bulk("message");
    w.Bulk(channel);
    w.Bulk(message);
    for (uint64_t client : it->second) sink_.Deliver(client, resp);
    receivers += it->second.size();
  }
  for (const auto& [pattern, subscribers] : patterns_) {
    if (!GlobMatch(pattern, channel, /*nocase=*/false)) continue;
    std::string resp;
    ReplyWriter w(&resp);
    w.Array(4);
    w.Bulk("pmessage");
    w.Bulk(pattern);
    w.Bulk(channel);
    w.Bulk(message);
    for (uint64_t client : subscribers) sink_.Deliver(client, resp);
    receivers += subscribers.size();
  }
  publishing_ = false;
  std::vector<uint64_t> removed;
  removed.swap(removed_while_publishing_);
  for (uint64_t client : removed) RemoveClient(client);
  return receivers;
}

template <typename Map>
size_t PubSub::Add(uint64_t client, std::string_view name,
                   Names Subscriptions::*own, Map& map) {
  Subscriptions& subs = clients_[client];
  if ((subs.*own).emplace(name).second) AddTo(map, name, client);
  return subs.count();
}

template <typename Map>
size_t PubSub::Drop(uint64_t client, std::string_view name,
                    Names Subscriptions::*own, Map& map) {
  auto it = clients_.find(client);
  if (it == clients_.end()) return 0;
  auto found = (it->second.*own).find(name);
  if (found != (it->second.*own).end()) {
    (it->second.*own).erase(found);
    RemoveFrom(map, name, client);
  }
  size_t left = it->second.count();
  if (left == 0) clients_.erase(it);
  return left;
}

size_t PubSub::Subscribe(uint64_t client, std::string_view channel) {
  return Add(client, channel, &Subscriptions::channels, channels_);
}

size_t PubSub::PSubscribe(uint64_t client, std::string_view pattern) {
  return Add(client, pattern, &Subscriptions::patterns, patterns_);
}

size_t PubSub::Unsubscribe(uint64_t client, std::string_view channel) {
  return Drop(client, channel, &Subscriptions::channels, channels_);
}

size_t PubSub::PUnsubscribe(uint64_t client, std::string_view pattern) {
  return Drop(client, pattern, &Subscriptions::patterns, patterns_);
}

void PubSub::RemoveClient(uint64_t client) {
  if (publishing_) {
    removed_while_publishing_.push_back(client);
    return;
  }
  auto it = clients_.find(client);
  if (it == clients_.end()) return;
  for (const std::string& channel : it->second.channels) {
    RemoveFrom(channels_, channel, client);
  }
  for (const std::string& pattern : it->second.patterns) {
    RemoveFrom(patterns_, pattern, client);
  }
  clients_.erase(it);
}

std::vector<std::string> PubSub::ChannelsOf(uint64_t client) const {
  auto it = clients_.find(client);
  if (it == clients_.end()) return {};
  return {it->second.channels.begin(), it->second.channels.end()};
}

std::vector<std::string> PubSub::PatternsOf(uint64_t client) const {
  auto it = clients_.find(client);
  if (it == clients_.end()) return {};
  return {it->second.patterns.begin(), it->second.patterns.end()};
}

size_t PubSub::ChannelCount(uint64_t client) const {
  auto it = clients_.find(client);
  return it == clients_.end() ? 0 : it->second.channels.size();
}

size_t PubSub::PatternCount(uint64_t client) const {
  auto it = clients_.find(client);
  return it == clients_.end() ? 0 : it->second.patterns.size();
}

std::vector<std::string> PubSub::ActiveChannels(
    std::optional<std::string_view> pattern) const {
  std::vector<std::string> out;
  for (const auto& [channel, subscribers] : channels_) {
    if (!pattern || GlobMatch(*pattern, channel, /*nocase=*/false)) {
      out.push_back(channel);
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

size_t PubSub::NumSubscribers(std::string_view channel) const {
  auto it = channels_.find(channel);
  return it == channels_.end() ? 0 : it->second.size();
}

}  // namespace frontier
