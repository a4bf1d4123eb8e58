#pragma once
// How hard a secret's value is to guess, for the rule that keeps a sandboxed kernel from finding
// it: every value filled from a `${VAR}` placeholder is redacted from what the kernel gets back,
// so a kernel that sends candidates through a tool that echoes them learns which candidate was
// the value (it alone comes back as `${VAR}`). That costs one tool call per guess: a value whose
// guessing takes about 2^48 calls stays out of reach; a six-digit PIN (2^20) does not. Pure.
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace ipybox::workspace {

// Below this, a filled value is refused under --sandbox unless the user allows its variable.
inline constexpr double min_secret_bits = 48.0;

// An upper estimate of the bits an attacker must guess: the length times log2 of the alphabet of
// the character classes it uses (digits 10, lower case 26, upper case 26, other ASCII 33, any
// byte above ASCII 128), where a value of one repeated character counts as that character alone.
// Words, dates and keyboard patterns are weaker than this says (README, Secrets).
double guessing_bits(std::string_view value);

// Variables whose values are too guessable to fill into servers a sandboxed kernel can call.
class guessable_secret_error : public std::runtime_error {
  public:
    explicit guessable_secret_error(std::vector<std::string> names);
    const std::vector<std::string>& names() const { return names_; }

  private:
    std::vector<std::string> names_;
};

}  // namespace ipybox::workspace
