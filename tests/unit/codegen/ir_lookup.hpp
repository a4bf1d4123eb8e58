#pragma once
// Finding classes and fields in a module_ir by name, for the codegen unit tests. A missing one
// fails the test case.
#include <doctest/doctest.h>

#include <stdexcept>
#include <string>

#include "ipybox/codegen/detail/ir.hpp"

namespace ipybox::codegen::testing {

inline const detail::model_def& model(const detail::module_ir& module, const std::string& name) {
    for (const auto& item : module.classes) {
        const auto* def = std::get_if<detail::model_def>(&item);
        if (def != nullptr && def->class_name == name) return *def;
    }
    FAIL("no model " << name);
    throw std::logic_error("unreachable");
}

inline const detail::enum_def& enumeration(const detail::module_ir& module,
                                           const std::string& name) {
    for (const auto& item : module.classes) {
        const auto* def = std::get_if<detail::enum_def>(&item);
        if (def != nullptr && def->class_name == name) return *def;
    }
    FAIL("no enum " << name);
    throw std::logic_error("unreachable");
}

inline const detail::field_def& field(const detail::model_def& def, const std::string& json_name) {
    for (const auto& f : def.fields) {
        if (f.json_name == json_name) return f;
    }
    FAIL("no field " << json_name);
    throw std::logic_error("unreachable");
}

}  // namespace ipybox::codegen::testing
