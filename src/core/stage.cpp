#include "core/stage.h"

#include "core/error.h"

namespace evk {

std::string stage_name(Stage s) { return s == Stage::Draft ? "draft" : "refine"; }

Stage stage_from(const std::string& name) {
  if (name == "draft") return Stage::Draft;
  if (name == "refine") return Stage::Refine;
  throw UsageError("unknown stage '" + name + "' (use draft or refine)");
}

}  // namespace evk
