// Retrieval conditioned on the start point's diagnosed bound (memory.diagnosis): the bound
// joins the query as the tag items carry, and Q2 is learnt per bound state beside the stage Q
// with the same update rule.
#include <gtest/gtest.h>

#include "core/diagnosis.h"
#include "helpers.h"
#include "memory/writers.h"

namespace evk {
namespace {

Item practice(const std::string& title, const std::string& bound_tag) {
  Item it;
  it.kind = ItemKind::BestPractice;
  it.title = title;
  it.body = "a change that made an elementwise kernel faster";
  it.tags = {"elementwise", bound_tag};
  it.feasible = true;
  return it;
}

TEST(Bound, TheStartPointsBoundRanksTheItemsThatFixedIt) {
  testing::TempDir d;
  Workspace ws(d.path());
  MemoryParams p = testing::test_params();
  p.n = 1;
  p.policy = Policy::Similarity;
  Memory m(ws, p);
  int64_t serial = m.add(practice("two buffers per queue", bound_tag(Bound::Serialised)));
  int64_t scalar = m.add(practice("vector calls for the scalar loop", bound_tag(Bound::Scalar)));
  MemoryQuery q;
  q.text = "elementwise kernel faster";
  q.kinds = {ItemKind::BestPractice};
  q.bound = "serialised";
  ASSERT_EQ(m.retrieve(q, Stage::Refine, 1).at(0).item.id, serial);
  q.bound = "scalar";
  ASSERT_EQ(m.retrieve(q, Stage::Refine, 1).at(0).item.id, scalar);
}

TEST(Bound, QIsLearntPerBoundStateWithTheSameRule) {
  testing::TempDir d;
  Workspace ws(d.path());
  MemoryParams p = testing::test_params();
  p.alpha = 0.5;
  p.n = 1;
  p.epsilon = 0;
  Memory m(ws, p);
  Item ia = practice("item a", "bound_mte2"), ib = practice("item b", "bound_mte2");
  ib.body = "bigger tiles: fewer DataCopy calls, each paying its startup, elementwise";
  int64_t a = m.add(ia);
  int64_t b = m.add(ib);
  ASSERT_NE(a, b);
  m.update({a}, Stage::Refine, 1.0);
  m.update_bound({a}, Stage::Refine, "mte2", 1.0);
  m.update_bound({a}, Stage::Refine, "mte2", 0.0);
  // Stage Q: 0 -> 0.5. Bound Q: 0 -> 0.5 -> 0.25: the same formula in its own state.
  EXPECT_DOUBLE_EQ(m.q(a, Stage::Refine), 0.5);
  EXPECT_DOUBLE_EQ(m.q_entry_bound(a, Stage::Refine, "mte2").q, 0.25);
  EXPECT_EQ(m.q_entry_bound(a, Stage::Refine, "mte2").visits, 2);
  EXPECT_EQ(m.q_entry_bound(a, Stage::Refine, "vector").visits, 0);
  // In the mte2 state, b (never visited there) keeps its stage Q of 0, a its bound Q 0.25: the
  // value policy ranks a first; b learnt well in that state overtakes it.
  MemoryQuery q;
  q.text = "elementwise";
  q.kinds = {ItemKind::BestPractice};
  q.bound = "mte2";
  EXPECT_EQ(m.retrieve(q, Stage::Refine, 1, Policy::Value, 0.0).at(0).item.id, a);
  m.update_bound({b}, Stage::Refine, "mte2", 1.0);
  m.update_bound({b}, Stage::Refine, "mte2", 1.0);
  EXPECT_EQ(m.retrieve(q, Stage::Refine, 1, Policy::Value, 0.0).at(0).item.id, b);
  // Without the bound in the query, the stage Q decides: a (0.5) over b (0).
  q.bound.clear();
  EXPECT_EQ(m.retrieve(q, Stage::Refine, 1, Policy::Value, 0.0).at(0).item.id, a);
  m.set_frozen(true);
  m.update_bound({b}, Stage::Refine, "mte2", -1.0);
  EXPECT_EQ(m.q_entry_bound(b, Stage::Refine, "mte2").visits, 2) << "frozen writes nothing";
}

TEST(Bound, ABestPracticeIsTaggedWithTheBoundItAddressed) {
  Diagnosis before, after;
  before.bound = Bound::Serialised;
  after.bound = Bound::Mte2;
  Item it = make_best_practice({.task = "relu",
                                .backend = "ascendc",
                                .ops = {"relu"},
                                .start_code = "BUFFER_NUM = 1\n",
                                .start_ms = 2,
                                .new_code = "BUFFER_NUM = 2\n",
                                .new_ms = 1,
                                .parent = std::nullopt,
                                .before = before,
                                .after = after});
  EXPECT_NE(std::find(it.tags.begin(), it.tags.end(), "bound_serialised"), it.tags.end());
  EXPECT_NE(it.body.find("Bound before: serialised; after: mte2."), std::string::npos) << it.body;
  BestPracticeInput in;
  in.task = "relu";
  in.start_ms = 2;
  in.new_ms = 1;
  Item plain = make_best_practice(in);
  EXPECT_EQ(plain.body.find("Bound before"), std::string::npos);
}

}  // namespace
}  // namespace evk
