// fake-openai: the tests' fake OpenAI-compatible server, from the command line, for demos of
// `evokernel llm ping` and the like without a real endpoint.
//   fake-openai [--port N] [--key KEY] [--models a,b] [--script ok,429:1,500,...] [--default B]
// Prints "listening on http://127.0.0.1:N/v1" and serves until SIGINT or SIGTERM.
#include <signal.h>

#include <cstring>
#include <iostream>
#include <sstream>

#include "fake_openai.h"

using namespace evk::fake;

static std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  for (std::string x; std::getline(ss, x, ',');)
    if (!x.empty()) out.push_back(x);
  return out;
}

static void usage() {
  std::cerr << "usage: fake-openai [--port N] [--key KEY] [--models fake,other] "
               "[--script ok,429:1,500,delay:2,malformed,truncated,reset,empty,no_usage,reasoning] "
               "[--default BEHAVIOUR]\n";
}

int main(int argc, char** argv) {
  ServerOptions opt;
  std::vector<Behavior> script;
  Behavior def;
  try {
    for (int i = 1; i < argc; ++i) {
      std::string a = argv[i];
      auto value = [&]() -> std::string {
        if (i + 1 >= argc) throw std::invalid_argument(a + " needs a value");
        return argv[++i];
      };
      if (a == "--port") opt.port = std::stoi(value());
      else if (a == "--key") opt.api_key = value();
      else if (a == "--models") opt.models = split(value());
      else if (a == "--script") for (const auto& s : split(value())) script.push_back(parse_behavior(s));
      else if (a == "--default") def = parse_behavior(value());
      else if (a == "--help" || a == "-h") { usage(); return 0; }
      else throw std::invalid_argument("unknown option " + a);
    }
  } catch (const std::exception& e) {
    std::cerr << "fake-openai: " << e.what() << "\n";
    usage();
    return 2;
  }
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);  // the server threads inherit the mask
  FakeOpenAI server(opt);
  server.script(script);
  server.set_default(def);
  std::cout << "listening on " << server.base_url() << std::endl;
  int sig = 0;
  sigwait(&set, &sig);
  std::cout << "served " << server.requests() << " requests" << std::endl;
  return 0;
}
