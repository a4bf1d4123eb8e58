#include <doctest/doctest.h>

#include "ipybox/jupyter/signer.hpp"

using ipybox::jupyter::signer;

TEST_SUITE("jupyter.signer") {
    TEST_CASE("signs with HMAC-SHA256 over the four JSON frames in order") {
        const signer key("secret-key");
        // Reference value from Python's hmac module over the same frames.
        CHECK(key.sign({R"({"msg_id":"1"})", "{}", "{}", R"({"code":"1+1"})"}) ==
              "f29edc2ae347e99e996cf426a9068abd72bbac08f131d7b7d863f0430600434a");
    }

    TEST_CASE("matches the RFC-style HMAC-SHA256 vector when the message is split") {
        const signer key("key");
        CHECK(key.sign({"The quick brown ", "fox jumps ", "over the lazy", " dog"}) ==
              "f7bc83f430538424b13298e6aa6fb143ef4d59a14946175997479dbc2d1a3cd8");
    }

    TEST_CASE("accepts its own signature") {
        const signer key("k");
        const auto signature = key.sign({"a", "b", "c", "d"});
        CHECK(key.verify(signature, {"a", "b", "c", "d"}));
    }

    TEST_CASE("rejects a signature over different content") {
        const signer key("k");
        const auto signature = key.sign({"a", "b", "c", "d"});
        CHECK_FALSE(key.verify(signature, {"a", "b", "c", "e"}));
    }

    TEST_CASE("rejects an empty signature when a key is set") {
        const signer key("k");
        CHECK_FALSE(key.verify("", {"a", "b", "c", "d"}));
    }

    TEST_CASE("rejects a signature of the wrong length") {
        const signer key("k");
        const auto signature = key.sign({"a", "b", "c", "d"});
        CHECK_FALSE(key.verify(signature.substr(0, 63), {"a", "b", "c", "d"}));
        CHECK_FALSE(key.verify(signature + "0", {"a", "b", "c", "d"}));
        CHECK_FALSE(key.verify(signature.substr(0, 10), {"a", "b", "c", "d"}));
    }

    TEST_CASE("rejects a signature made with another key") {
        const auto signature = signer("one").sign({"a", "b", "c", "d"});
        CHECK_FALSE(signer("two").verify(signature, {"a", "b", "c", "d"}));
    }

    TEST_CASE("with no key signs nothing and accepts any signature, as the protocol specifies") {
        const signer none("");
        CHECK_FALSE(none.enabled());
        CHECK(none.sign({"a", "b", "c", "d"}).empty());
        CHECK(none.verify("anything", {"a", "b", "c", "d"}));
    }
}
