#include <doctest/doctest.h>

#include "ipybox/jupyter/wire.hpp"

using namespace ipybox::jupyter;

namespace {

message sample() {
    message msg = make_request("execute_request", {{"code", "print(1)"}}, "session-1");
    msg.parent_header = {{"msg_id", "parent-7"}};
    msg.identities = {"id-a", "id-b"};
    msg.buffers = {std::string("\x00\x01\x02", 3)};
    return msg;
}

}  // namespace

TEST_SUITE("jupyter.wire") {
    TEST_CASE("round-trips a message with identities and buffers") {
        const signer key("k");
        const auto original = sample();
        const auto decoded = decode(encode(original, key), key);
        REQUIRE(decoded.msg);
        CHECK(decoded.msg->identities == original.identities);
        CHECK(decoded.msg->header == original.header);
        CHECK(decoded.msg->parent_msg_id() == "parent-7");
        CHECK(decoded.msg->content["code"] == "print(1)");
        CHECK(decoded.msg->buffers == original.buffers);
        CHECK(decoded.msg->msg_type() == "execute_request");
    }

    TEST_CASE("places the delimiter and signature before the four JSON frames") {
        const signer key("k");
        const auto frames = encode(sample(), key);
        REQUIRE(frames.size() == 2 + 1 + 1 + 4 + 1);
        CHECK(frames[2] == "<IDS|MSG>");
        CHECK(frames[3].size() == 64);
        CHECK(key.verify(frames[3], {frames[4], frames[5], frames[6], frames[7]}));
    }

    TEST_CASE("drops a message without the delimiter") {
        const signer key("k");
        auto frames = encode(sample(), key);
        frames.erase(frames.begin() + 2);
        const auto decoded = decode(frames, key);
        CHECK_FALSE(decoded.msg);
        CHECK(decoded.error == decode_error::missing_delimiter);
    }

    TEST_CASE("drops a message with fewer than five frames after the delimiter") {
        const signer key("k");
        auto frames = encode(sample(), key);
        frames.resize(7);  // identities, delimiter, signature, header, parent, metadata
        const auto decoded = decode(frames, key);
        CHECK(decoded.error == decode_error::too_few_frames);
    }

    TEST_CASE("drops a message whose content was altered after signing") {
        const signer key("k");
        auto frames = encode(sample(), key);
        frames[7] = R"J({"code":"import os; os.system('x')"})J";
        const auto decoded = decode(frames, key);
        CHECK(decoded.error == decode_error::bad_signature);
    }

    TEST_CASE("drops a message with a short signature") {
        const signer key("k");
        auto frames = encode(sample(), key);
        frames[3] = frames[3].substr(0, 32);
        CHECK(decode(frames, key).error == decode_error::bad_signature);
    }

    TEST_CASE("drops a message with an empty signature when a key is set") {
        const signer key("k");
        auto frames = encode(sample(), key);
        frames[3].clear();
        const auto decoded = decode(frames, key);
        CHECK(decoded.error == decode_error::bad_signature);
        CHECK(decoded.detail == "empty signature");
    }

    TEST_CASE("drops a correctly signed message whose JSON is malformed") {
        const signer key("k");
        std::vector<std::string> frames = {"<IDS|MSG>", "", "{not json", "{}", "{}", "{}"};
        frames[1] = key.sign({frames[2], frames[3], frames[4], frames[5]});
        CHECK(decode(frames, key).error == decode_error::invalid_json);
    }

    TEST_CASE("drops a message whose header is not an object") {
        const signer key("k");
        std::vector<std::string> frames = {"<IDS|MSG>", "", "[1,2]", "{}", "{}", "{}"};
        frames[1] = key.sign({frames[2], frames[3], frames[4], frames[5]});
        CHECK(decode(frames, key).error == decode_error::invalid_json);
    }

    TEST_CASE("keeps a message whose text is not UTF-8, with U+FFFD in place of the bad bytes") {
        const signer key("k");
        std::vector<std::string> frames = {"<IDS|MSG>",
                                           "",
                                           R"({"msg_type":"stream"})",
                                           "{}",
                                           "{}",
                                           "{\"text\":\"a\xff\xfe"
                                           "b\"}"};
        frames[1] = key.sign({frames[2], frames[3], frames[4], frames[5]});
        const auto decoded = decode(frames, key);
        REQUIRE(decoded.msg);
        CHECK(decoded.msg->content["text"] ==
              "a\xef\xbf\xbd\xef\xbf\xbd"
              "b");
    }

    TEST_CASE("encodes strings that are not UTF-8 without throwing") {
        const signer key("k");
        message msg = make_request("execute_request", {{"code", "x = '\xff'"}}, "s");
        const auto frames = encode(msg, key);
        CHECK(frames.back().find("\xef\xbf\xbd") != std::string::npos);
    }
}
