#pragma once
// HMAC-SHA256 signing of Jupyter messages, as the connection file's key and signature_scheme
// ("hmac-sha256") prescribe. The signature covers header, parent header, metadata and content,
// in that order, and is sent as lowercase hex.
//
// Verification follows jupyter_client, not its weaker imitators: with a key set, an empty
// signature is refused, the length is checked before comparing, and the comparison takes constant
// time. Immutable after construction; safe to share between threads.
#include <array>
#include <string>
#include <string_view>

namespace ipybox::jupyter {

class signer {
  public:
    // An empty key disables signing: sign() returns "" and verify() accepts anything, which is
    // what the protocol specifies for unauthenticated kernels. ipybox always uses a key.
    explicit signer(std::string key);

    using signed_parts = std::array<std::string_view, 4>;

    std::string sign(const signed_parts& parts) const;
    bool verify(std::string_view signature, const signed_parts& parts) const;

    bool enabled() const { return !key_.empty(); }

  private:
    std::string key_;
};

}  // namespace ipybox::jupyter
