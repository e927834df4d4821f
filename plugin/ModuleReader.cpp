// New modules read by LLDB on a thread of their own.
#include "ModuleReader.h"

#include <system_error>

namespace jitsym::plugin {
namespace {

lldb::SBModule readModule(const lldb::SBModuleSpec &spec) {
  lldb::SBModule module(spec);
  if (!module.IsValid())
    return module;
  module.GetNumSymbols(); // LLDB parses the object and its symbol table
  // and indexes its names: as LLDB loads a module, its runtimes (the GDB JIT
  // interface's, the sanitizers') each look a name up in it, and the first
  // lookup builds the index (a third of loading a module that was read).
  module.FindSymbol("__jit_debug_register_code");
  return module;
}

} // namespace

ModuleReader::~ModuleReader() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  changed_.notify_all();
  if (thread_.joinable())
    thread_.join();
}

size_t ModuleReader::read(const lldb::SBModuleSpec &spec) {
  std::lock_guard<std::mutex> lock(mutex_);
  const size_t ticket = next_++;
  queue_.emplace_back(ticket, spec);
  if (!thread_.joinable() && !noThread_) {
    try {
      thread_ = std::thread([this] { run(); });
    } catch (const std::system_error &) {
      noThread_ = true; // `take` reads it
    }
  }
  changed_.notify_all();
  return ticket;
}

lldb::SBModule ModuleReader::take(size_t ticket) {
  std::unique_lock<std::mutex> lock(mutex_);
  if (noThread_) {
    for (auto it = queue_.begin(); it != queue_.end(); ++it)
      if (it->first == ticket) {
        const lldb::SBModuleSpec spec = it->second;
        queue_.erase(it);
        lock.unlock();
        return readModule(spec);
      }
    return {};
  }
  // Not read here while the thread reads it: the caller's own work (adding
  // modules to the target) is the longer, so it takes none of the thread's.
  changed_.wait(lock, [&] { return read_.count(ticket) > 0; });
  lldb::SBModule module = std::move(read_[ticket]);
  read_.erase(ticket);
  return module;
}

void ModuleReader::run() {
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    changed_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
    if (stopping_)
      return;
    auto [ticket, spec] = std::move(queue_.front());
    queue_.pop_front();
    lock.unlock();
    lldb::SBModule module = readModule(spec);
    lock.lock();
    read_[ticket] = std::move(module);
    changed_.notify_all();
  }
}

} // namespace jitsym::plugin
