// hiredis's asynchronous API with its libevent adapter, for the server's
// connections to other frontierd nodes on its own loop (ReplicaAnnouncer;
// ClusterForwarder uses InternalLink). The adapter is C written for C
// compilers: its warnings are quieted here, once.
#pragma once

#include <hiredis/async.h>
#include <hiredis/hiredis.h>
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpedantic"
#pragma GCC diagnostic ignored "-Wshadow"
#include <hiredis/adapters/libevent.h>
#pragma GCC diagnostic pop
