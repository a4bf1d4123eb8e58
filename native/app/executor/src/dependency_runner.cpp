#include "dependency_runner.hpp"

namespace ipybox::app {

void dependency_runner::add(const approval::add_dependencies& what,
                            toolserver::dependency_handler done) {
    pool_.post([run = run_, what, done = std::move(done)] {
        toolserver::dependency_outcome outcome;
        try {
            auto added = run(what);
            outcome = {added.added, std::move(added.report)};
        } catch (const std::exception& e) {
            outcome = {false, std::string("adding the dependencies failed: ") + e.what()};
        }
        done(std::move(outcome));
    });
}

}  // namespace ipybox::app
