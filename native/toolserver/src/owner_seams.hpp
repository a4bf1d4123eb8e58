#pragma once
// The tool server's way to its owner's gate, invoker and library writer, which the owner
// destroys once stop() has returned, while answers may still be on their way (an approval that
// comes late, an MCP call that completes after the server stopped).
//
// Every use of an owner's object happens inside a section: stop() closes the sections, so that
// none starts any more, and waits for those running. Sections are short (none of the three
// interfaces blocks), so the wait is too. An answer arriving after stop() finds the sections
// closed and is dropped where it would have gone on (the invoker is not called, the writer does
// not write); its connection is closed anyway.
//
// Thread-safety: every member may be called from any thread.
#include <condition_variable>
#include <cstddef>
#include <mutex>

#include "ipybox/approval/gate.hpp"
#include "ipybox/toolserver/dependency_adder.hpp"
#include "ipybox/toolserver/library_writer.hpp"
#include "ipybox/toolserver/tool_invoker.hpp"

namespace ipybox::toolserver::detail {

class sections {
  public:
    // False once closed; otherwise the caller is in a section until leave().
    bool enter();
    void leave();
    // No section starts from here on; returns when none runs. Not from inside a section.
    void close_and_wait();

  private:
    std::mutex mutex_;
    std::condition_variable idle_;
    std::size_t running_ = 0;
    bool closed_ = false;
};

class guarded_gate : public approval::gate {
  public:
    guarded_gate(approval::gate& inner, sections& guard) : inner_(inner), guard_(guard) {}
    void decide(const approval::request& what, approval::decision_handler done) override;

  private:
    approval::gate& inner_;
    sections& guard_;
};

class guarded_invoker : public tool_invoker {
  public:
    guarded_invoker(tool_invoker& inner, sections& guard) : inner_(inner), guard_(guard) {}
    bool knows_server(const std::string& server_name) const override;
    void invoke(const approval::tool_call& call, outcome_handler done) override;

  private:
    tool_invoker& inner_;
    sections& guard_;
};

class guarded_dependencies : public dependency_adder {
  public:
    guarded_dependencies(dependency_adder& inner, sections& guard) : inner_(inner), guard_(guard) {}
    void add(const approval::add_dependencies& what, dependency_handler done) override;
    std::string refusal(const approval::add_dependencies& what) const override;
    void annotate(approval::add_dependencies& what) const override;

  private:
    dependency_adder& inner_;
    sections& guard_;
};

class guarded_library : public library_writer {
  public:
    guarded_library(library_writer& inner, sections& guard) : inner_(inner), guard_(guard) {}
    gentool_save_outcome save(const gentool_save& request) override;

  private:
    library_writer& inner_;
    sections& guard_;
};

}  // namespace ipybox::toolserver::detail
