#pragma once
// How hard a secret's value is to guess, for the rule that keeps a sandboxed kernel from finding
// it: every value filled from a `${VAR}` placeholder is redacted from what the kernel gets back,
// so a kernel that sends candidates through a tool that echoes them learns which candidate was
// the value (it alone comes back as `${VAR}`). One call can carry hundreds of thousands of
// guesses, so a value stays out of reach only when it takes about 2^56 of them (years at a
// million a second); a six-digit PIN (2^20) falls in a call or two. Pure.
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace ipybox::workspace {

// Below this, a filled value is refused under --sandbox unless the user allows its variable.
inline constexpr double min_secret_bits = 56.0;

// An upper estimate of the bits an attacker must guess: the length times log2 of the alphabet of
// the character classes it uses (digits 10, lower case 26, upper case 26, other ASCII 33, any
// byte above ASCII 128), where a value of one repeated character counts as that character alone.
// Words, dates and keyboard patterns are weaker than this says (README, Secrets).
double guessing_bits(std::string_view value);

// True when `value` or a piece of it that is redacted on its own (core/redactor.hpp: each line
// of a multi-line value, the part before its first '#' or '?', from min_piece_length
// characters) is guessable: a piece found by guessing is as good as a value. Values shorter
// than the redactor's min_value_length are no secret and never guessable.
bool guessable(std::string_view value);

// Variables whose values are too guessable to fill into servers a sandboxed kernel can call.
class guessable_secret_error : public std::runtime_error {
  public:
    explicit guessable_secret_error(std::vector<std::string> names);
    const std::vector<std::string>& names() const { return names_; }

  private:
    std::vector<std::string> names_;
};

}  // namespace ipybox::workspace
