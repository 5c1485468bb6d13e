// The server process: start-up (configuration applied, commands
// registered, listeners of every configured connection type bound), the
// cron, before-sleep and the orderly shutdown. The state it runs on is
// core/state.h; main() makes the one Instance. Nothing includes this header
// but main.cpp and tests: the rest of the server reaches the state.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "event/event_loop.h"
#include "net/connection.h"
#include "server/core/state.h"

namespace server {

class Instance final : public Server {
 public:
  Instance();
  ~Instance() override;

  // Applies the configuration, binds every listener. Returns false with a
  // logged reason when start-up must stop.
  bool start();
  void run() { loop.run(); }
  // Orderly exit (SHUTDOWN, SIGTERM): closes listeners and clients.
  void prepareShutdown();
  bool rebindListeners(std::string* err) override;

 private:
  struct BoundListener {
    std::string type;
    std::unique_ptr<net::Listener> listener;
  };
  bool openListeners(std::string* err);
  static void onAccept(net::Connection* conn, void* data);
  static void onAccepted(net::Connection* conn);
  int cron();
  void beforeSleep();
  void handlePendingWrites();
  // Frees the clients scheduled to close, all but `keep` (a busy
  // script's caller), which stays scheduled.
  void freeClosingClients(Client* keep);
  void clientsCron();
  void databasesCron();

  std::vector<BoundListener> listeners_;
  event::TimerId cron_timer_ = 0;
};

}  // namespace server
