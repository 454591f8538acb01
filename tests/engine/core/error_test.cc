#include "engine/error.h"

#include <gtest/gtest.h>

#include "engine/check.h"

namespace fleetwave::engine {
namespace {

TEST(Error, NamesItsObjectThenWhatIsWrong) {
  struct Case {
    const char* name;
    Error error;
    const char* want;
  };
  const Case cases[] = {
      {"object and message", NotFoundError("repo@abc:apps/web", "path not found"),
       "repo@abc:apps/web: path not found"},
      {"the message names the object itself", TransientError("", "cluster dev is unreachable"),
       "cluster dev is unreachable"},
      {"an object alone", PermanentError("Deployment/web", ""), "Deployment/web"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(c.error.ToString(), c.want);
  }
}

TEST(Error, EachFactoryGivesItsKind) {
  EXPECT_EQ(TransientError("o", "m").kind, ErrorKind::kTransient);
  EXPECT_EQ(ConflictError("o", "m").kind, ErrorKind::kConflict);
  EXPECT_EQ(NotFoundError("o", "m").kind, ErrorKind::kNotFound);
  EXPECT_EQ(PermanentError("o", "m").kind, ErrorKind::kPermanent);
  EXPECT_EQ(InvalidInputError("o", "m").kind, ErrorKind::kInvalidInput);
  EXPECT_EQ(InvalidInputError("o", "m"), (Error{ErrorKind::kInvalidInput, "o", "m"}));
  EXPECT_NE(InvalidInputError("o", "m"), PermanentError("o", "m")) << "the kind is compared";
}

TEST(Error, KindsHaveStableNamesAndRetryability) {
  struct Case {
    ErrorKind kind;
    const char* name;
    bool retryable;
  };
  const Case cases[] = {
      {ErrorKind::kTransient, "transient", true},
      {ErrorKind::kConflict, "conflict", true},
      {ErrorKind::kNotFound, "not-found", true},
      {ErrorKind::kPermanent, "permanent", false},
      {ErrorKind::kInvalidInput, "invalid-input", false},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_STREQ(ErrorKindName(c.kind), c.name);
    EXPECT_EQ(IsRetryable(c.kind), c.retryable);
  }
}

TEST(CheckDeathTest, ABrokenInvariantStopsWithItsMessage) {
  const int slots = -1;
  EXPECT_DEATH(
      FLEETWAVE_CHECK(slots >= 0, "a negative slot count"),
      "invariant broken at .*error_test.cc:[0-9]+: a negative slot count \\(slots >= 0\\)");
  FLEETWAVE_CHECK(slots < 0, "never fires when the invariant holds");
}

}  // namespace
}  // namespace fleetwave::engine
