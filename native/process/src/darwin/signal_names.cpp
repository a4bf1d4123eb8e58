#include "../signal_names.hpp"

#include <signal.h>

#include <array>
#include <cctype>

namespace ipybox::process::detail {

// sys_signame spells them in lower case ("kill"); the upper-case copies are made once.
const char* signal_abbreviation(int signal) {
    static const auto names = [] {
        std::array<std::array<char, 16>, NSIG> upper{};
        for (int number = 1; number < NSIG; ++number) {
            const char* name = sys_signame[number];
            for (std::size_t i = 0; name != nullptr && name[i] != '\0' && i + 1 < 16; ++i) {
                upper[number][i] =
                    static_cast<char>(std::toupper(static_cast<unsigned char>(name[i])));
            }
        }
        return upper;
    }();
    if (signal <= 0 || signal >= NSIG || names[signal][0] == '\0') return nullptr;
    return names[signal].data();
}

}  // namespace ipybox::process::detail
