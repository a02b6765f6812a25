#include "llm/provider.h"

#include "llm/accountant.h"
#include "llm/cassette.h"
#include "llm/cmd.h"
#include "llm/openai.h"
#include "llm/sim_provider.h"

namespace evk {

std::unique_ptr<Provider> make_provider(const std::string& model, const Config& cfg,
                                        std::shared_ptr<Accountant> accountant) {
  std::unique_ptr<Provider> base;
  std::string priced_as = model;  // the name looked up in llm.prices
  if (model == "sim") {
    base = make_sim_provider(cfg);
  } else if (model.rfind("openai:", 0) == 0) {
    priced_as = model.substr(7);
    base = std::make_unique<OpenAIProvider>(OpenAIOptions::from_config(cfg, priced_as));
  } else if (model.rfind("cmd:", 0) == 0) {
    base = std::make_unique<CmdProvider>(CmdOptions::from_config(cfg, model.substr(4)));
  } else if (model.rfind("replay:", 0) == 0) {
    if (model.size() == 7)
      throw UsageError("model 'replay:' names no cassette: use replay:FILE");
    base = std::make_unique<ReplayProvider>(model.substr(7));
    priced_as = "";  // priced by the recorded reply's model
  } else {
    throw UsageError("unknown model '" + model +
                     "': use openai:MODEL (any OpenAI-compatible endpoint at llm.base_url), "
                     "cmd:TOOL [ARGS] (your own program: messages as JSON on stdin, the reply "
                     "on stdout), replay:FILE or sim");
  }
  // Accounting inside recording: a refused call is never recorded, and a cassette that
  // cannot be written fails the call only after its tokens were counted.
  base = with_accounting(std::move(base), priced_as, std::move(accountant));
  if (std::string rec = cfg.str("llm.record"); !rec.empty())
    base = with_recording(std::move(base), rec, model);
  return base;
}

std::unique_ptr<Provider> make_provider(const std::string& model, const Config& cfg) {
  return make_provider(model, cfg, Accountant::from_config(cfg));
}

}  // namespace evk
