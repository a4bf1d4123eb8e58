#pragma once
// The tool server's dependency adder for a code_executor: runs the front end's
// code_executor_options::add_dependencies (blocking: a server start, codegen, pip) on a pool of
// one thread of the executor's own, one request after another, and answers when it returns.
//
// Thread-safety: add() from any thread. The pool must outlive the runner; the work it queued
// holds copies of what it needs, so the runner may go first.
#include <filesystem>
#include <functional>

#include "ipybox/code_executor.hpp"
#include "ipybox/core/work_pool.hpp"
#include "ipybox/toolserver/dependency_adder.hpp"

namespace ipybox::app {

class dependency_runner : public toolserver::dependency_adder {
  public:
    using work = std::function<dependencies_added(const approval::add_dependencies&)>;
    using check = std::function<std::string(const approval::add_dependencies&)>;
    // `refuse` (may be empty: nothing refused) answers refusal(); `project` is the workspace
    // the servers would be registered for.
    dependency_runner(core::work_pool& pool, work run, check refuse, std::filesystem::path project)
        : pool_(pool),
          run_(std::move(run)),
          refuse_(std::move(refuse)),
          project_(std::move(project)) {}

    void add(const approval::add_dependencies& what, toolserver::dependency_handler done) override;
    std::string refusal(const approval::add_dependencies& what) const override {
        return refuse_ ? refuse_(what) : std::string();
    }
    void annotate(approval::add_dependencies& what) const override;

  private:
    core::work_pool& pool_;
    work run_;
    check refuse_;
    std::filesystem::path project_;
};

}  // namespace ipybox::app
