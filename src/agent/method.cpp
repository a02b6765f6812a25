#include "agent/method.h"

#include "core/error.h"

namespace evk {

Method method_by_name(const std::string& name) {
  //                       name  policy        write  learn  attempts refine startQ api
  if (name == "evokernel") return {name, Policy::Value, true, true, true, true, true, true};
  if (name == "rag") return {name, Policy::Similarity, true, false, true, true, false, true};
  if (name == "refine") return {name, Policy::None, false, false, true, true, false, true};
  if (name == "passk") return {name, Policy::None, false, false, false, false, false, false};
  throw UsageError("unknown method '" + name + "': use evokernel, passk, refine or rag");
}

}  // namespace evk
