// Pub/Sub: which client listens to which channel or pattern, and the one
// function that publishes (Redis's pubsub.c is the model).
//
// A client is known here only by its id. PubSub formats each message as
// RESP2 push data (`message` / `pmessage`) once per publish (once per
// matching pattern) and hands the bytes to a PubSubSink, which the event
// loop implements by appending them to the client's unsent replies. Nothing
// here knows sockets, connections or commands; the handlers of
// SUBSCRIBE & co. (server/commands/pubsub_commands.cc) write the
// confirmations, and the loop calls RemoveClient when a client goes away.
//
// Not thread-safe: it lives on the event loop's thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace frontier {

// Where published messages go.
class PubSubSink {
 public:
  virtual ~PubSubSink() = default;
  // Appends `resp` (one complete RESP2 array) to client `client`'s output.
  // May drop it (the client is closing, or over its output limit: the sink
  // then disconnects it and may call PubSub::RemoveClient, which takes
  // effect when the publish is over). Must not call Publish, Subscribe or
  // PSubscribe.
  virtual void Deliver(uint64_t client, std::string_view resp) = 0;
};

class PubSub {
 public:
  // `sink` must outlive the PubSub.
  explicit PubSub(PubSubSink& sink) : sink_(sink) {}
  PubSub(const PubSub&) = delete;
  PubSub& operator=(const PubSub&) = delete;

  // Sends `message` to every client subscribed to `channel` and to every
  // client subscribed to a pattern that matches it (Redis's glob, case
  // sensitive). Returns the number of deliveries: a client subscribed to
  // the channel and to a matching pattern counts (and receives) twice, as
  // in Redis. The frontier's own notices (e.g. hints) are published here
  // too.
  size_t Publish(std::string_view channel, std::string_view message);

  // Subscribes `client` to `channel` / `pattern` (nothing changes if it
  // already is). Both return the client's subscription count afterwards
  // (channels plus patterns), the number Redis's confirmations carry.
  size_t Subscribe(uint64_t client, std::string_view channel);
  size_t PSubscribe(uint64_t client, std::string_view pattern);
  // The reverse; unsubscribing from something not subscribed changes
  // nothing. Return the count afterwards, as above.
  size_t Unsubscribe(uint64_t client, std::string_view channel);
  size_t PUnsubscribe(uint64_t client, std::string_view pattern);
  // Drops every subscription of `client`, sending nothing (a disconnect,
  // RESET). Called during a Publish (from the sink), it takes effect when
  // that publish returns.
  void RemoveClient(uint64_t client);

  // The channels / patterns `client` is subscribed to, sorted.
  std::vector<std::string> ChannelsOf(uint64_t client) const;
  std::vector<std::string> PatternsOf(uint64_t client) const;
  // How many channels / patterns `client` is subscribed to (CLIENT LIST's
  // sub= and psub=).
  size_t ChannelCount(uint64_t client) const;
  size_t PatternCount(uint64_t client) const;

  // PUBSUB CHANNELS: channels with at least one subscriber whose name
  // matches `pattern` (every channel without one), sorted.
  std::vector<std::string> ActiveChannels(
      std::optional<std::string_view> pattern) const;
  // PUBSUB NUMSUB: subscribers of `channel` (patterns not counted).
  size_t NumSubscribers(std::string_view channel) const;
  // INFO's pubsub_channels and pubsub_patterns, PUBSUB NUMPAT: channels
  // with a subscriber, and distinct patterns with a subscriber.
  size_t NumChannels() const { return channels_.size(); }
  size_t NumPatterns() const { return patterns_.size(); }

 private:
  // Lets the channel map be searched with a string_view, no copy.
  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const {
      return std::hash<std::string_view>{}(s);
    }
  };
  // Subscribers by client id: delivery in a fixed order (oldest client
  // first) and O(log n) removal when one of many leaves.
  using Clients = std::set<uint64_t>;
  using Names = std::set<std::string, std::less<>>;
  // What one client listens to (Redis's c->pubsub_channels/patterns).
  struct Subscriptions {
    Names channels;
    Names patterns;
    size_t count() const { return channels.size() + patterns.size(); }
  };

  // Subscribe/PSubscribe and Unsubscribe/PUnsubscribe: `own` is the
  // client's side (channels or patterns), `map` the server's.
  template <typename Map>
  size_t Add(uint64_t client, std::string_view name, Names Subscriptions::*own,
             Map& map);
  template <typename Map>
  size_t Drop(uint64_t client, std::string_view name, Names Subscriptions::*own,
              Map& map);

  PubSubSink& sink_;
  std::unordered_map<std::string, Clients, Hash, std::equal_to<>> channels_;
  // Every publish tests every pattern, as Redis does.
  std::map<std::string, Clients, std::less<>> patterns_;
  std::unordered_map<uint64_t, Subscriptions> clients_;
  // While Publish walks the maps, removals wait here.
  bool publishing_ = false;
  std::vector<uint64_t> removed_while_publishing_;
};

}  // namespace frontier
