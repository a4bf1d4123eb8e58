#pragma once
// Cells of one kernel that wait for a 2026-07-28 client's answer to an approval (MCP multi
// round-trip requests). Such a client cannot be sent a request, so the tool call that needs the
// answer returns an input_required result: the question as an elicitation, and a requestState
// sealed by cell_tickets.hpp. The cell itself goes on waiting here, with its execution stream and
// the pending approval, until the client's retry brings the answer (take()), or `wait` passes:
// then the approval is rejected ("no answer came") and the rest of the cell runs to its end, its
// output dropped, on a thread of its own. Every requestState is good for one retry.
//
// Thread-safety: every method may be called from any thread; the timers run on `io`.
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>

#include "cell_output.hpp"
#include "cell_tickets.hpp"
#include "ipybox/approval_request.hpp"
#include "ipybox/code_executor.hpp"
#include "ipybox/core/work_pool.hpp"
#include "ipybox/mcp/session/types.hpp"

namespace ipybox::app {

// The elicitation that asks the user about `request` (its form: one boolean, "approve"), the
// same over both eras.
nlohmann::json approval_elicitation(const approval_request& request);
// Whether an elicitation answer approves: accepted, and "approve" not false.
bool approves(const nlohmann::json& answer);

struct waiting_cell {
    code_execution_stream stream;
    approval_request request;
    cell_output_options output;
};

class parked_cells {
  public:
    parked_cells(boost::asio::io_context& io, std::chrono::milliseconds wait);
    ~parked_cells();  // abandon("ipybox is stopping")

    parked_cells(const parked_cells&) = delete;
    parked_cells& operator=(const parked_cells&) = delete;

    // Keeps `cell` and returns the input_required result for the call with `arguments`.
    mcp::session::call_tool_result park(waiting_cell cell, const nlohmann::json& arguments);

    // The cell the retry's `state` names, taken out. Throws ticket_refused (cell_tickets.hpp), and
    // when no cell waits for a genuine state (answered already, or its wait passed).
    waiting_cell take(const std::string& state, const nlohmann::json& arguments);

    bool any() const;
    // Rejects every waiting approval with `reason` and lets the cells run out (reset, shutdown).
    void abandon(const std::string& reason);

  private:
    struct entry {
        std::unique_ptr<waiting_cell> cell;
        std::shared_ptr<boost::asio::steady_timer> timer;
    };
    void run_out(std::unique_ptr<waiting_cell> cell, const std::string& reason);

    boost::asio::io_context& io_;
    const std::chrono::milliseconds wait_;
    const std::string key_;     // the process's seal key (parked_cells.cpp)
    const std::string kernel_;  // names this kernel in tickets
    mutable std::mutex mutex_;
    std::map<std::string, entry> cells_;
    core::work_pool drains_{"abandoned-cells", 1};
};

}  // namespace ipybox::app
