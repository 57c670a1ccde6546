// repl-ack-probe: can a replication master learn that a quorum holds a
// commit without its commit waiting for Berkeley DB's acknowledgements?
// (docs/performance.md, "Not waiting for the acknowledgement on the
// loop"). A measurement tool, not used by frontierd.
//
//   repl-ack-probe [records per transaction (400)] [rounds (200)]
//
// Starts a master and a replica environment in one process (Replication
// Manager on 127.0.0.1, ports PROBE_PORT and PROBE_PORT + 1, 17501 unless
// set), in a temporary directory removed at the end. Each round commits one
// transaction of N puts on the master, with a commit token, then asks the
// replica over a Replication Manager channel whether that transaction is
// applied there: the replica's message handler answers with what
// DB_ENV->txn_applied returns for the token. Prints the average commit time
// (what an event loop would wait), the average time until the answer (what
// a reply would wait) and the part of it the replica spent in txn_applied.
// Both sites run DB_REPMGR_ACKS_NONE: no commit waits, the answer is the
// only acknowledgement. Exit status 1 if a round is not answered "applied"
// or the group does not form.
//
// Uses Berkeley DB's C API: the C++ one has no commit tokens,
// txn_applied or channel requests with responses of the caller's buffer.
#include <db.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

namespace {

std::atomic<bool> replica_ready{false};
std::atomic<int64_t> applied_ns{0};
std::atomic<int> applied_calls{0};

int64_t NowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

void OnReplicaEvent(DB_ENV*, u_int32_t event, void*) {
  if (event == DB_EVENT_REP_STARTUPDONE) replica_ready = true;
}

void OnMasterEvent(DB_ENV*, u_int32_t event, void*) {
  if (event == DB_EVENT_REP_PERM_FAILED) std::fprintf(stderr, "perm failed\n");
}

// On the replica's message threads: request[0] is a commit token.
void OnRequest(DB_ENV* env, DB_CHANNEL* channel, DBT* request, u_int32_t,
               u_int32_t flags) {
  int ret = EINVAL;
  if (request[0].size == sizeof(DB_TXN_TOKEN)) {
    DB_TXN_TOKEN token;
    std::memcpy(&token, request[0].data, sizeof(token));
    const int64_t start = NowNs();
    ret = env->txn_applied(env, &token, 1'000'000, 0);  // 1 s, in us
    applied_ns += NowNs() - start;
    ++applied_calls;
  }
  if ((flags & DB_REPMGR_NEED_RESPONSE) == 0) return;
  DBT response;
  std::memset(&response, 0, sizeof(response));
  response.data = &ret;
  response.size = sizeof(ret);
  (void)channel->send_msg(channel, &response, 1, 0);
}

DB_ENV* Open(const std::string& dir, u_int port, u_int helper, int policy,
             void (*events)(DB_ENV*, u_int32_t, void*)) {
  DB_ENV* env = nullptr;
  if (db_env_create(&env, 0) != 0) return nullptr;
  env->set_errfile(env, stderr);
  env->set_event_notify(env, events);
  DB_SITE* site = nullptr;
  env->repmgr_site(env, "127.0.0.1", port, &site, 0);
  site->set_config(site, DB_LOCAL_SITE, 1);
  if (helper == 0) site->set_config(site, DB_GROUP_CREATOR, 1);
  site->close(site);
  if (helper != 0) {
    env->repmgr_site(env, "127.0.0.1", helper, &site, 0);
    site->set_config(site, DB_BOOTSTRAP_HELPER, 1);
    site->close(site);
  }
  env->repmgr_set_ack_policy(env, policy);
  env->repmgr_msg_dispatch(env, OnRequest, 0);
  env->set_flags(env, DB_TXN_NOSYNC, 1);
  const int ret = env->open(env, dir.c_str(),
                            DB_CREATE | DB_INIT_LOCK | DB_INIT_LOG |
                                DB_INIT_MPOOL | DB_INIT_TXN | DB_INIT_REP |
                                DB_THREAD | DB_RECOVER,
                            0);
  if (ret != 0) {
    std::fprintf(stderr, "open %s: %s\n", dir.c_str(), db_strerror(ret));
    env->close(env, 0);
    return nullptr;
  }
  return env;
}

int Run(const std::string& dir, int records, int rounds, u_int port) {
  const int policy = DB_REPMGR_ACKS_NONE;
  DB_ENV* master = Open(dir + "/master", port, 0, policy, OnMasterEvent);
  if (master == nullptr ||
      master->repmgr_start(master, 3, DB_REP_MASTER) != 0) {
    return 1;
  }
  DB* db = nullptr;
  db_create(&db, master, 0);
  if (db->open(db, nullptr, "probe.db", nullptr, DB_BTREE,
               DB_CREATE | DB_AUTO_COMMIT | DB_THREAD, 0644) != 0) {
    return 1;
  }
  DB_ENV* replica =
      Open(dir + "/replica", port + 1, port, policy, OnReplicaEvent);
  if (replica == nullptr ||
      replica->repmgr_start(replica, 3, DB_REP_CLIENT) != 0) {
    return 1;
  }
  for (int i = 0; i < 200 && !replica_ready; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  if (!replica_ready) {
    std::fprintf(stderr, "the replica did not catch up within 10 s\n");
    return 1;
  }
  u_int count = 0;
  DB_REPMGR_SITE* list = nullptr;
  master->repmgr_site_list(master, &count, &list);
  int eid = DB_EID_INVALID;
  for (u_int i = 0; i < count; ++i) {
    if (list[i].port == port + 1) eid = list[i].eid;
  }
  std::free(list);
  DB_CHANNEL* channel = nullptr;
  if (master->repmgr_channel(master, eid, &channel, 0) != 0) return 1;

  int64_t commit_ns = 0, answer_ns = 0;
  int failures = 0;
  std::string value(100, 'x');
  for (int r = 0; r < rounds; ++r) {
    DB_TXN* txn = nullptr;
    master->txn_begin(master, nullptr, &txn, 0);
    for (int k = 0; k < records; ++k) {
      std::string key = "k" + std::to_string(r) + "-" + std::to_string(k);
      DBT kd, vd;
      std::memset(&kd, 0, sizeof(kd));
      std::memset(&vd, 0, sizeof(vd));
      kd.data = key.data();
      kd.size = static_cast<u_int32_t>(key.size());
      vd.data = value.data();
      vd.size = static_cast<u_int32_t>(value.size());
      db->put(db, txn, &kd, &vd, 0);
    }
    DB_TXN_TOKEN token;
    txn->set_commit_token(txn, &token);
    const int64_t t0 = NowNs();
    const int committed = txn->commit(txn, 0);
    const int64_t t1 = NowNs();
    DBT request, response;
    std::memset(&request, 0, sizeof(request));
    std::memset(&response, 0, sizeof(response));
    request.data = &token;
    request.size = sizeof(token);
    int answer = -1;
    response.data = &answer;
    response.ulen = sizeof(answer);
    response.flags = DB_DBT_USERMEM;
    const int sent =
        channel->send_request(channel, &request, 1, &response, 2'000'000, 0);
    const int64_t t2 = NowNs();
    if (committed != 0 || sent != 0 || answer != 0) ++failures;
    commit_ns += t1 - t0;
    answer_ns += t2 - t1;
  }
  std::printf(
      "%d records per transaction: commit %.3f ms, answer %.3f ms "
      "(replica in txn_applied %.3f ms), %d of %d rounds failed\n",
      records,
      static_cast<double>(commit_ns) / rounds / 1e6,
      static_cast<double>(answer_ns) / rounds / 1e6,
      static_cast<double>(applied_ns.load()) /
          std::max(applied_calls.load(), 1) / 1e6,
      failures, rounds);
  channel->close(channel, 0);
  db->close(db, 0);
  replica->close(replica, 0);
  master->close(master, 0);
  return failures == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  const int records = argc > 1 ? std::atoi(argv[1]) : 400;
  const int rounds = argc > 2 ? std::atoi(argv[2]) : 200;
  const char* port_env = std::getenv("PROBE_PORT");
  const u_int port =
      static_cast<u_int>(port_env != nullptr ? std::atoi(port_env) : 17501);
  if (records < 1 || rounds < 1 || port == 0 || port > 65534) {
    std::fprintf(stderr, "usage: repl-ack-probe [records per transaction] [rounds]\n");
    return 2;
  }
  char dir[] = "/tmp/repl-ack-probe.XXXXXX";
  if (mkdtemp(dir) == nullptr) return 1;
  const std::string master = std::string(dir) + "/master";
  const std::string replica = std::string(dir) + "/replica";
  if (mkdir(master.c_str(), 0700) != 0 || mkdir(replica.c_str(), 0700) != 0) {
    return 1;
  }
  const int status = Run(dir, records, rounds, port);
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
  return status;
}
