#include "jitsym/writer/ForkAware.h"

#include <algorithm>
#include <mutex>
#include <pthread.h>
#include <vector>

#include "ThisProcess.h"

namespace jitsym::writer {
namespace {

std::mutex registryMutex;
std::vector<ForkAware *> &registry() {
  static auto *producers = new std::vector<ForkAware *>(); // outlives static destructors
  return *producers;
}

void prepare() {
  registryMutex.lock();
  for (ForkAware *producer : registry())
    producer->beforeFork();
}

void parent() {
  for (ForkAware *producer : registry())
    producer->afterForkInParent();
  registryMutex.unlock();
}

void child() {
  forgetThreadIdsAfterFork();
  for (ForkAware *producer : registry())
    producer->afterForkInChild();
  registryMutex.unlock();
}

} // namespace

void watchForks(ForkAware *producer) {
  static std::once_flag installed;
  std::call_once(installed, [] { ::pthread_atfork(prepare, parent, child); });
  std::lock_guard<std::mutex> lock(registryMutex);
  registry().push_back(producer);
}

void unwatchForks(ForkAware *producer) {
  std::lock_guard<std::mutex> lock(registryMutex);
  auto &producers = registry();
  producers.erase(std::remove(producers.begin(), producers.end(), producer), producers.end());
}

} // namespace jitsym::writer
