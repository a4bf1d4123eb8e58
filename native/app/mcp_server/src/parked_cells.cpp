#include "parked_cells.hpp"

#include <boost/asio/post.hpp>

#include "ipybox/core/log.hpp"
#include "ipybox/core/random.hpp"

namespace ipybox::app {
namespace {

using mcp::session::call_tool_result;
using nlohmann::json;

// Timers are the loop's: cancelled there, kept alive until then.
void cancel_on_loop(const std::shared_ptr<boost::asio::steady_timer>& timer) {
    boost::asio::post(timer->get_executor(), [timer] { timer->cancel(); });
}

// One key for the seals of the whole process (so that a state taken to another kernel opens and
// is refused for naming another, rather than looking forged); it never leaves the process.
const std::string& seal_key() {
    static const std::string key = core::random_hex(32);
    return key;
}

std::int64_t unix_now() {
    return std::chrono::duration_cast<std::chrono::seconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
}

}  // namespace

json approval_elicitation(const approval_request& request) {
    auto message = request.question();  // approval_question.hpp: a layout no server text imitates
    if (message.ends_with('\n')) message.pop_back();
    return {{"message", message},
            {"requestedSchema",
             {{"type", "object"},
              {"properties", {{"approve", {{"type", "boolean"}, {"title", "Approve this call"}}}}},
              {"required", {"approve"}}}}};
}

bool approves(const json& answer) {
    if (!answer.is_object() || answer.value("action", "") != "accept") return false;
    const auto content = answer.value("content", json::object());
    return !content.is_object() || content.value("approve", true) == true;
}

parked_cells::parked_cells(boost::asio::io_context& io, std::chrono::milliseconds wait)
    : io_(io), wait_(wait), key_(seal_key()), kernel_(core::random_hex(16)) {}

parked_cells::~parked_cells() {
    abandon("ipybox is stopping");
    drains_.join();
}

call_tool_result parked_cells::park(waiting_cell cell, const json& arguments) {
    const auto id = core::random_hex(16);
    const auto seconds = std::chrono::duration_cast<std::chrono::seconds>(wait_).count();
    cell_ticket ticket{kernel_, id, arguments_digest(arguments),
                       unix_now() + std::max<long long>(seconds, 1)};
    json params = approval_elicitation(cell.request);
    params["mode"] = "form";
    call_tool_result result;
    result.input_requests = {{"approval", {{"method", "elicitation/create"}, {"params", params}}}};
    result.request_state = seal_ticket(key_, ticket);
    auto timer = std::make_shared<boost::asio::steady_timer>(io_, wait_);
    {
        std::lock_guard lock(mutex_);
        cells_.emplace(id, entry{std::make_unique<waiting_cell>(std::move(cell)), timer});
    }
    timer->async_wait([this, id](const boost::system::error_code& error) {
        if (error) return;  // taken or abandoned
        std::unique_ptr<waiting_cell> expired;
        {
            std::lock_guard lock(mutex_);
            const auto it = cells_.find(id);
            if (it == cells_.end()) return;
            expired = std::move(it->second.cell);
            cells_.erase(it);
        }
        run_out(std::move(expired), "no answer came within the time it waited");
    });
    return result;
}

waiting_cell parked_cells::take(const std::string& state, const json& arguments) {
    const auto ticket = open_ticket(key_, state, kernel_, arguments_digest(arguments), unix_now());
    std::lock_guard lock(mutex_);
    const auto it = cells_.find(ticket.cell);
    if (it == cells_.end()) {
        throw ticket_refused(
            "no cell waits for this requestState any more: it was answered already, or it "
            "stopped waiting");
    }
    cancel_on_loop(it->second.timer);
    auto cell = std::move(*it->second.cell);
    cells_.erase(it);
    return cell;
}

bool parked_cells::any() const {
    std::lock_guard lock(mutex_);
    return !cells_.empty();
}

void parked_cells::abandon(const std::string& reason) {
    std::map<std::string, entry> taken;
    {
        std::lock_guard lock(mutex_);
        taken.swap(cells_);
    }
    for (auto& [id, held] : taken) {
        cancel_on_loop(held.timer);
        run_out(std::move(held.cell), reason);
    }
}

void parked_cells::run_out(std::unique_ptr<waiting_cell> cell, const std::string& reason) {
    cell->request.reject(reason);
    auto shared = std::shared_ptr<waiting_cell>(std::move(cell));
    const auto drain = [shared, reason] {
        // The rest of the cell runs; approvals it asks for meanwhile are refused too.
        while (auto step = shared->stream.next_step()) {
            if (auto* request = std::get_if<approval_request>(&*step)) request->reject(reason);
        }
    };
    try {
        drains_.post(drain);
    } catch (const std::logic_error&) {  // stopping: the stream's destructor cancels the cell
        core::logger("server")->info("a cell waiting for an approval is cancelled: {}", reason);
    }
}

}  // namespace ipybox::app
