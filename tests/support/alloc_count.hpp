// Counting allocations: an executable built with alloc_count.cpp among its
// sources gets a global operator new that counts calls per thread, so a test
// can check that code allocates nothing. (Not part of rw_test_support: that
// would replace operator new in every test executable.)
#pragma once

namespace rw::test {

/// Number of operator new calls made so far on this thread.
long allocations_on_this_thread();

}  // namespace rw::test
