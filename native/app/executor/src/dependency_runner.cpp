#include "dependency_runner.hpp"

#include "ipybox/workspace/outside_project.hpp"

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

void dependency_runner::annotate(approval::add_dependencies& what) const {
    what.project = project_.string();
    what.outside_project.clear();
    for (const auto& [name, params] : what.servers) {
        auto outside = workspace::paths_outside_project(params, project_);
        if (!outside.empty()) what.outside_project[name] = std::move(outside);
    }
}

}  // namespace ipybox::app
