#include <gtest/gtest.h>

#include "llm/http.h"

using evk::parse_retry_after;

TEST(RetryAfter, SecondsAndHttpDates) {
  EXPECT_DOUBLE_EQ(parse_retry_after("2").value(), 2);
  EXPECT_DOUBLE_EQ(parse_retry_after("0.5").value(), 0.5);  // not in the RFC, sent by some proxies
  EXPECT_FALSE(parse_retry_after("").has_value());
  EXPECT_FALSE(parse_retry_after("soon").has_value());
  EXPECT_FALSE(parse_retry_after("-3").has_value());
  EXPECT_DOUBLE_EQ(parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT").value(), 0);  // past: now
  EXPECT_GT(parse_retry_after("Fri, 01 Jan 2100 00:00:00 GMT").value(), 1e6);
}
