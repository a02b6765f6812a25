// One loop for every "do these n independent things on k threads" in the tree (tasks of a
// run, verifications of a batch): each index is handed out once, to whichever thread is free.
#pragma once
#include <cstddef>
#include <functional>

namespace evk {

// Runs body(i) for every i in [0, n) on up to `threads` threads, the caller's among them, and
// returns when all have finished. The first exception a body throws stops the hand-out of
// further indices (bodies already running finish) and is rethrown here; later ones are dropped.
// A body that must not stop the others catches its own exceptions.
void parallel_for(size_t n, int threads, const std::function<void(size_t)>& body);

}  // namespace evk
