// Counting allocations: linking this replaces the global operator new with
// one that counts calls per thread, so a test can check that code allocates
// nothing.
#pragma once

namespace rw::test {

/// Number of operator new calls made so far on this thread.
long allocations_on_this_thread();

}  // namespace rw::test
