// A producer's files belong to one process: fork hands a child the parent's
// descriptors and code. Producers register here so that fork finds each one
// between writes (its lock taken before the fork, given back after it) and a
// child can start files of its own.
#pragma once

namespace jitsym::writer {

class ForkAware {
public:
  virtual ~ForkAware() = default;
  virtual void beforeFork() = 0;       // take the lock
  virtual void afterForkInParent() = 0; // give it back
  virtual void afterForkInChild() = 0;  // forget the parent's files, give it back
};

void watchForks(ForkAware *producer);
void unwatchForks(ForkAware *producer);

} // namespace jitsym::writer
