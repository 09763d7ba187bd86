// Handles and the objects behind them, without MPI_Init: object pools and their graveyard, freed-handle
// detection, MPI_<Handle>_toint/_fromint, info objects, error classes and the ABI queries (all usable
// before MPI_Init), and -- with the library's "initialized" flag set by hand, since they need no
// communication -- group set operations and attribute caching with their callbacks.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cstring>
#include <string>
#include <vector>

#include "mpi/comm.h"
#include "mpi/info.h"
#include "mpi/state.h"

using namespace pamir::mpi;

namespace {

MPI_Group handle(Group *g) {
  return g == group_empty() ? MPI_GROUP_EMPTY : handle_of<MPI_Group>(g);
}

std::vector<uint32_t> tasks_of(MPI_Group h) {
  Group *g = lookup<Group>(h);
  return g ? g->tasks : std::vector<uint32_t>{0xdead};
}

// MPI calls that need an initialized library, with errors returned rather than fatal.
class Initialized : public ::testing::Test {
 protected:
  void SetUp() override {
    saved_ = state();
    state().initialized = true;
    state().finalized = false;
    state().up = true;  // what MPI_Init's library_start leaves
    world_eh_ = comm_world()->errhandler;
    self_eh_ = comm_self()->errhandler;
    comm_world()->errhandler = errhandler_return();
    comm_self()->errhandler = errhandler_return();
  }
  void TearDown() override {
    comm_world()->errhandler = world_eh_;
    comm_self()->errhandler = self_eh_;
    state() = saved_;
  }
  static int cls(int code) {
    int c = -1;
    MPI_Error_class(code, &c);
    return c;
  }

 private:
  State saved_;
  Errhandler *world_eh_ = nullptr, *self_eh_ = nullptr;
};

}  // namespace

TEST(ObjectPool, FreedObjectsAreDetectedAndReusedOnlyAfterTheGraveyardFills) {
  Group *g = group_make({1, 2, 3});
  MPI_Group h = handle(g);
  EXPECT_EQ(lookup<Group>(h), g);
  EXPECT_FALSE(is_freed<Group>(h));
  release(g);
  EXPECT_EQ(lookup<Group>(h), nullptr);
  EXPECT_TRUE(is_freed<Group>(h));
  // The freed object waits in the graveyard: it is handed out again only once kKeepDead others have died
  // after it (and every object that died before it was reused first).
  auto &graveyard = pool<Group>().graveyard;
  ASSERT_EQ(graveyard.back(), g);
  const size_t ahead = graveyard.size() - 1;
  size_t freed_after = 0;
  bool reused = false;
  for (size_t i = 0; i < ahead + ObjectPool<Group>::kKeepDead + 4 && !reused; ++i) {
    Group *x = group_make({7});
    if (x == g) {
      reused = true;
      EXPECT_GE(freed_after, ObjectPool<Group>::kKeepDead);
      // The memory holds a new group of a later generation: the new handle names it, the stale one
      // is still reported as freed rather than taken for the new group.
      EXPECT_EQ(lookup<Group>(handle(x)), x);
      EXPECT_NE(handle(x), h);
      EXPECT_EQ(lookup<Group>(h), nullptr);
      EXPECT_TRUE(is_freed<Group>(h));
    }
    release(x);
    ++freed_after;
  }
  EXPECT_TRUE(reused);
}

TEST(ObjectPool, GenerationsTellEveryReuseApart) {
  // One slot reused many times: each handle it ever had is refused once the next object took it.
  Group *first = group_make({9});
  std::vector<MPI_Group> old;
  old.push_back(handle(first));
  release(first);
  for (int i = 0; i < 20 * int(ObjectPool<Group>::kKeepDead); ++i) {
    Group *x = group_make({uint32_t(i)});
    if (x == first) {
      for (MPI_Group o : old) EXPECT_EQ(lookup<Group>(o), nullptr);
      old.push_back(handle(x));
    }
    EXPECT_EQ(lookup<Group>(handle(x)), x);
    release(x);
  }
  EXPECT_GE(old.size(), 3u);  // the slot came back at least twice
  for (MPI_Group o : old) {
    EXPECT_EQ(lookup<Group>(o), nullptr);
    EXPECT_TRUE(is_freed<Group>(o));
  }
}

TEST(ObjectPool, ReferenceCountsKeepObjectsAlive) {
  Group *g = group_make({4, 5});
  ++g->refs;  // a communicator holding it
  release(g);
  EXPECT_EQ(lookup<Group>(handle(g)), g);
  release(g);
  EXPECT_EQ(lookup<Group>(handle(g)), nullptr);
}

TEST(Predefined, HandlesIndexTheirTables) {
  EXPECT_EQ(lookup<Comm>(MPI_COMM_WORLD), comm_world());
  EXPECT_EQ(lookup<Comm>(MPI_COMM_SELF), comm_self());
  EXPECT_EQ(lookup<Comm>(MPI_COMM_NULL), nullptr);
  EXPECT_EQ(lookup<Group>(MPI_GROUP_EMPTY), group_empty());
  EXPECT_EQ(lookup<Group>(MPI_GROUP_NULL), nullptr);
  EXPECT_EQ(lookup<Errhandler>(MPI_ERRORS_RETURN), errhandler_return());
  EXPECT_NE(info_of(MPI_INFO_ENV), nullptr);
  EXPECT_EQ(info_of(MPI_INFO_NULL), nullptr);
  EXPECT_EQ(group_make({}), group_empty());
}

TEST(HandleInts, PredefinedHandlesAreTheirAbiValues) {
  EXPECT_EQ(MPI_Comm_toint(MPI_COMM_WORLD), 257);
  EXPECT_EQ(MPI_Comm_toint(MPI_COMM_NULL), 256);
  EXPECT_EQ(MPI_Comm_fromint(258), MPI_COMM_SELF);
  EXPECT_EQ(MPI_Type_toint(MPI_INT), int(reinterpret_cast<intptr_t>(MPI_INT)));
  EXPECT_EQ(MPI_Type_fromint(MPI_Type_toint(MPI_DOUBLE)), MPI_DOUBLE);
  EXPECT_EQ(MPI_Op_fromint(MPI_Op_toint(MPI_SUM)), MPI_SUM);
  EXPECT_EQ(MPI_Errhandler_fromint(MPI_Errhandler_toint(MPI_ERRORS_RETURN)), MPI_ERRORS_RETURN);
  EXPECT_EQ(MPI_Group_fromint(MPI_Group_toint(MPI_GROUP_EMPTY)), MPI_GROUP_EMPTY);
  EXPECT_EQ(MPI_Info_fromint(MPI_Info_toint(MPI_INFO_ENV)), MPI_INFO_ENV);
  EXPECT_EQ(MPI_Request_fromint(MPI_Request_toint(MPI_REQUEST_NULL)), MPI_REQUEST_NULL);
  EXPECT_EQ(MPI_Message_fromint(MPI_Message_toint(MPI_MESSAGE_NULL)), MPI_MESSAGE_NULL);
  EXPECT_EQ(MPI_File_fromint(MPI_File_toint(MPI_FILE_NULL)), MPI_FILE_NULL);
  EXPECT_EQ(MPI_Win_fromint(MPI_Win_toint(MPI_WIN_NULL)), MPI_WIN_NULL);
  EXPECT_EQ(MPI_Session_fromint(MPI_Session_toint(MPI_SESSION_NULL)), MPI_SESSION_NULL);
  EXPECT_EQ(MPI_Comm_fromint(-5), MPI_COMM_NULL);
  EXPECT_EQ(MPI_Comm_fromint(123456), MPI_COMM_NULL);
}

TEST(HandleInts, UserObjectsRoundTripAndGoStaleWhenFreed) {
  Group *a = group_make({1}), *b = group_make({2});
  const int ia = MPI_Group_toint(handle(a)), ib = MPI_Group_toint(handle(b));
  EXPECT_GE(ia, 1024);
  EXPECT_NE(ia, ib);
  EXPECT_EQ(MPI_Group_toint(handle(a)), ia);  // cached
  EXPECT_EQ(MPI_Group_fromint(ia), handle(a));
  EXPECT_EQ(MPI_Group_fromint(ib), handle(b));
  EXPECT_EQ(MPI_Comm_fromint(ia), MPI_COMM_NULL);  // tables are per kind
  release(a);
  EXPECT_EQ(MPI_Group_fromint(ia), MPI_GROUP_NULL);
  EXPECT_EQ(MPI_Group_toint(handle(a)), MPI_Group_toint(MPI_GROUP_NULL));
  object_forget_int(Kind::group, ib);
  EXPECT_EQ(object_from_int(Kind::group, ib), nullptr);
  release(b);
  // A user info object too.
  MPI_Info info;
  ASSERT_EQ(MPI_Info_create(&info), MPI_SUCCESS);
  const int ii = MPI_Info_toint(info);
  EXPECT_EQ(MPI_Info_fromint(ii), info);
  MPI_Info_free(&info);
  EXPECT_EQ(MPI_Info_fromint(ii), MPI_INFO_NULL);
}

TEST(Info, WorksBeforeInit) {
  MPI_Info info, dup;
  ASSERT_EQ(MPI_Info_create(&info), MPI_SUCCESS);
  EXPECT_EQ(MPI_Info_set(info, "b", "2"), MPI_SUCCESS);
  EXPECT_EQ(MPI_Info_set(info, "a", "1"), MPI_SUCCESS);
  EXPECT_EQ(MPI_Info_set(info, "b", "3"), MPI_SUCCESS);
  int n = 0, flag = 0, len = 0;
  MPI_Info_get_nkeys(info, &n);
  EXPECT_EQ(n, 2);
  char key[MPI_MAX_INFO_KEY], value[16];
  MPI_Info_get_nthkey(info, 0, key);
  EXPECT_STREQ(key, "b");
  MPI_Info_get_nthkey(info, 1, key);
  EXPECT_STREQ(key, "a");
  int buflen = sizeof value;
  MPI_Info_get_string(info, "b", &buflen, value, &flag);
  EXPECT_TRUE(flag);
  EXPECT_STREQ(value, "3");
  EXPECT_EQ(buflen, 2);
  buflen = 0;
  MPI_Info_get_string(info, "a", &buflen, nullptr, &flag);
  EXPECT_EQ(buflen, 2);  // the length it needs
  MPI_Info_get_valuelen(info, "a", &len, &flag);
  EXPECT_EQ(len, 1);
  MPI_Info_get(info, "zzz", 5, value, &flag);
  EXPECT_FALSE(flag);
  ASSERT_EQ(MPI_Info_dup(info, &dup), MPI_SUCCESS);
  EXPECT_EQ(MPI_Info_delete(info, "b"), MPI_SUCCESS);
  EXPECT_EQ(MPI_Info_delete(info, "b"), MPI_ERR_INFO_NOKEY);  // no handler before init: the class
  MPI_Info_get_nkeys(dup, &n);
  EXPECT_EQ(n, 2);
  std::string long_key(MPI_MAX_INFO_KEY, 'k');
  EXPECT_EQ(MPI_Info_set(info, long_key.c_str(), "v"), MPI_ERR_INFO_KEY);
  std::string long_value(MPI_MAX_INFO_VAL, 'v');
  EXPECT_EQ(MPI_Info_set(info, "k", long_value.c_str()), MPI_ERR_INFO_VALUE);
  EXPECT_EQ(MPI_Info_set(info, "", "v"), MPI_ERR_INFO_KEY);
  EXPECT_EQ(MPI_Info_get_nthkey(info, 3, key), MPI_ERR_ARG);
  EXPECT_EQ(MPI_Info_free(&info), MPI_SUCCESS);
  EXPECT_EQ(info, MPI_INFO_NULL);
  EXPECT_EQ(MPI_Info_free(&info), MPI_ERR_INFO);
  MPI_Info_free(&dup);
  MPI_Info env = MPI_INFO_ENV;
  EXPECT_EQ(MPI_Info_free(&env), MPI_ERR_INFO);
  EXPECT_EQ(MPI_Info_set(MPI_INFO_ENV, "x", "y"), MPI_ERR_INFO);
  buflen = sizeof value;
  char arch[64];
  buflen = sizeof arch;
  MPI_Info_get_string(MPI_INFO_ENV, "arch", &buflen, arch, &flag);
  EXPECT_TRUE(flag);
}

TEST(Abi, QueriesWorkBeforeInit) {
  int major = -1, minor = -1;
  EXPECT_EQ(MPI_Abi_get_version(&major, &minor), MPI_SUCCESS);
  EXPECT_EQ(major, 1);
  EXPECT_EQ(minor, 0);
  MPI_Info info;
  ASSERT_EQ(MPI_Abi_get_info(&info), MPI_SUCCESS);
  for (const char *k : {"mpi_aint_size", "mpi_count_size", "mpi_offset_size"}) {
    char v[8];
    int len = sizeof v, flag = 0;
    MPI_Info_get_string(info, k, &len, v, &flag);
    EXPECT_TRUE(flag) << k;
    EXPECT_STREQ(v, "8") << k;
  }
  MPI_Info_free(&info);
  int16_t t = -1, f = 0, gt = 0, gf = 0;
  int is_set = 1;
  char big_t[16], big_f[16];
  EXPECT_EQ(MPI_Abi_get_fortran_booleans(16, big_t, big_f, &is_set), MPI_SUCCESS);
  EXPECT_FALSE(is_set);  // never set for this size
  EXPECT_EQ(MPI_Abi_set_fortran_booleans(2, &t, &f), MPI_SUCCESS);
  EXPECT_EQ(MPI_Abi_get_fortran_booleans(2, &gt, &gf, &is_set), MPI_SUCCESS);
  EXPECT_TRUE(is_set);
  EXPECT_EQ(gt, -1);
  EXPECT_EQ(gf, 0);
  EXPECT_EQ(MPI_Abi_set_fortran_booleans(2, &t, &f), MPI_SUCCESS);  // the same values again
  int16_t other = 1;
  EXPECT_EQ(MPI_Abi_set_fortran_booleans(2, &other, &f), MPI_ERR_ABI);
  EXPECT_EQ(MPI_Abi_set_fortran_booleans(6, &t, &f), MPI_ERR_ARG);
}

TEST(Errors, ClassesAndCodesWorkBeforeInit) {
  int cls = -1;
  EXPECT_EQ(MPI_Error_class(MPI_ERR_TRUNCATE, &cls), MPI_SUCCESS);
  EXPECT_EQ(cls, MPI_ERR_TRUNCATE);
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  EXPECT_EQ(MPI_Error_string(MPI_ERR_RANK, text, &len), MPI_SUCCESS);
  EXPECT_NE(std::strstr(text, "MPI_ERR_RANK"), nullptr);
  EXPECT_EQ(int(std::strlen(text)), len);
  EXPECT_EQ(MPI_Error_class(-7, &cls), MPI_ERR_ARG);
  int mine = 0, code = 0;
  MPI_Add_error_class(&mine);
  EXPECT_GT(mine, MPI_ERR_LASTCODE);
  MPI_Add_error_code(mine, &code);
  EXPECT_EQ(MPI_Error_class(code, &cls), MPI_SUCCESS);
  EXPECT_EQ(cls, mine);
  EXPECT_EQ(MPI_Add_error_string(code, "mine"), MPI_SUCCESS);
  MPI_Error_string(code, text, &len);
  EXPECT_STREQ(text, "mine");
  EXPECT_EQ(MPI_Add_error_code(code, &cls), MPI_ERR_ARG);  // a code is not a class
  EXPECT_EQ(MPI_Remove_error_class(mine), MPI_ERR_ARG);    // it still has a code
  EXPECT_EQ(MPI_Remove_error_code(code), MPI_SUCCESS);
  EXPECT_EQ(MPI_Remove_error_class(mine), MPI_SUCCESS);
  EXPECT_EQ(MPI_Error_class(code, &cls), MPI_ERR_ARG);
  EXPECT_EQ(MPI_Add_error_code(mine, &code), MPI_ERR_ARG);
}

TEST_F(Initialized, GroupSetOperationsKeepMpisOrder) {
  Group *a = group_make({5, 3, 9, 1}), *b = group_make({9, 7, 5});
  MPI_Group u, i, d, e;
  ASSERT_EQ(MPI_Group_union(handle(a), handle(b), &u), MPI_SUCCESS);
  EXPECT_EQ(tasks_of(u), (std::vector<uint32_t>{5, 3, 9, 1, 7}));
  ASSERT_EQ(MPI_Group_intersection(handle(a), handle(b), &i), MPI_SUCCESS);
  EXPECT_EQ(tasks_of(i), (std::vector<uint32_t>{5, 9}));
  ASSERT_EQ(MPI_Group_difference(handle(a), handle(b), &d), MPI_SUCCESS);
  EXPECT_EQ(tasks_of(d), (std::vector<uint32_t>{3, 1}));
  ASSERT_EQ(MPI_Group_difference(handle(b), handle(a), &e), MPI_SUCCESS);
  EXPECT_EQ(tasks_of(e), (std::vector<uint32_t>{7}));
  MPI_Group none;
  MPI_Group_difference(i, handle(a), &none);
  EXPECT_EQ(none, MPI_GROUP_EMPTY);

  int res = -1;
  MPI_Group_compare(handle(a), handle(a), &res);
  EXPECT_EQ(res, MPI_IDENT);
  Group *a2 = group_make({1, 9, 3, 5});
  MPI_Group_compare(handle(a), handle(a2), &res);
  EXPECT_EQ(res, MPI_SIMILAR);
  MPI_Group_compare(handle(a), handle(b), &res);
  EXPECT_EQ(res, MPI_UNEQUAL);

  const int r1[] = {0, 1, 2, 3, MPI_PROC_NULL};
  int r2[5];
  ASSERT_EQ(MPI_Group_translate_ranks(handle(a), 5, r1, handle(b), r2), MPI_SUCCESS);
  EXPECT_EQ(r2[0], 2);
  EXPECT_EQ(r2[1], MPI_UNDEFINED);
  EXPECT_EQ(r2[2], 0);
  EXPECT_EQ(r2[3], MPI_UNDEFINED);
  EXPECT_EQ(r2[4], MPI_PROC_NULL);

  MPI_Group inc, exc, rin, rex;
  const int pick[] = {3, 0};
  MPI_Group_incl(handle(a), 2, pick, &inc);
  EXPECT_EQ(tasks_of(inc), (std::vector<uint32_t>{1, 5}));
  MPI_Group_excl(handle(a), 2, pick, &exc);
  EXPECT_EQ(tasks_of(exc), (std::vector<uint32_t>{3, 9}));
  int ranges[2][3] = {{3, 1, -2}, {0, 0, 1}};
  MPI_Group_range_incl(handle(a), 2, ranges, &rin);
  EXPECT_EQ(tasks_of(rin), (std::vector<uint32_t>{1, 3, 5}));
  MPI_Group_range_excl(handle(a), 2, ranges, &rex);
  EXPECT_EQ(tasks_of(rex), (std::vector<uint32_t>{9}));

  // Errors come back as detailed codes of the right class.
  MPI_Group bad = MPI_GROUP_NULL;
  const int dup_ranks[] = {1, 1}, out_of_range[] = {4};
  EXPECT_EQ(cls(MPI_Group_incl(handle(a), 2, dup_ranks, &bad)), MPI_ERR_RANK);
  EXPECT_EQ(cls(MPI_Group_incl(handle(a), 1, out_of_range, &bad)), MPI_ERR_RANK);
  EXPECT_EQ(cls(MPI_Group_excl(handle(a), 2, dup_ranks, &bad)), MPI_ERR_RANK);
  int zero[1][3] = {{0, 3, 0}}, overlap[2][3] = {{0, 2, 1}, {2, 3, 1}}, wrong_way[1][3] = {{3, 0, 1}};
  EXPECT_EQ(cls(MPI_Group_range_incl(handle(a), 1, zero, &bad)), MPI_ERR_ARG);
  EXPECT_EQ(cls(MPI_Group_range_incl(handle(a), 2, overlap, &bad)), MPI_ERR_RANK);
  EXPECT_EQ(cls(MPI_Group_range_excl(handle(a), 1, wrong_way, &bad)), MPI_ERR_ARG);
  EXPECT_EQ(bad, MPI_GROUP_NULL);
  EXPECT_EQ(cls(MPI_Group_translate_ranks(handle(a), 1, out_of_range, handle(b), r2)), MPI_ERR_RANK);
  int size = 0;
  EXPECT_EQ(cls(MPI_Group_size(MPI_GROUP_NULL, &size)), MPI_ERR_GROUP);

  for (MPI_Group *g : {&u, &i, &d, &e, &none, &inc, &exc, &rin, &rex})
    EXPECT_EQ(MPI_Group_free(g), MPI_SUCCESS);
  MPI_Group ha = handle(a);
  MPI_Group_free(&ha);
  EXPECT_EQ(cls(MPI_Group_size(handle(a), &size)), MPI_ERR_GROUP);  // freed
  release(b);
  release(a2);
}

namespace {
int copies, deletes;
std::vector<intptr_t> deleted_values;
int copy_plus_one(MPI_Comm, int, void *, void *in, void *out, int *flag) {
  ++copies;
  *static_cast<void **>(out) = static_cast<char *>(in) + 1;
  *flag = 1;
  return MPI_SUCCESS;
}
int record_delete(MPI_Comm, int, void *value, void *) {
  ++deletes;
  deleted_values.push_back(reinterpret_cast<intptr_t>(value));
  return MPI_SUCCESS;
}
}  // namespace

TEST_F(Initialized, AttributesCopyDeleteAndKeepFreedKeyvalsAlive) {
  int k1, k2, k3;
  ASSERT_EQ(MPI_Comm_create_keyval(copy_plus_one, record_delete, &k1, nullptr), MPI_SUCCESS);
  ASSERT_EQ(MPI_Comm_create_keyval(MPI_COMM_DUP_FN, record_delete, &k2, nullptr), MPI_SUCCESS);
  ASSERT_EQ(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, record_delete, &k3, nullptr), MPI_SUCCESS);
  EXPECT_GE(k1, 1024);
  Comm *w = comm_world();
  MPI_Comm_set_attr(MPI_COMM_WORLD, k1, reinterpret_cast<void *>(100));
  MPI_Comm_set_attr(MPI_COMM_WORLD, k2, reinterpret_cast<void *>(200));
  MPI_Comm_set_attr(MPI_COMM_WORLD, k3, reinterpret_cast<void *>(300));

  Comm *to = pool<Comm>().make();
  copies = 0;
  ASSERT_EQ(attrs_copy(w, to, "test"), MPI_SUCCESS);
  EXPECT_EQ(copies, 1);
  ASSERT_EQ(to->attrs.size(), 2u);
  EXPECT_EQ(to->attrs.at(k1).value, reinterpret_cast<void *>(101));
  EXPECT_EQ(to->attrs.at(k2).value, reinterpret_cast<void *>(200));

  // Free a keyval in use: the attributes keep it; its callback still runs.
  int k1_copy = k1;
  MPI_Comm_free_keyval(&k1);
  EXPECT_EQ(k1, MPI_KEYVAL_INVALID);
  void *v = nullptr;
  int flag = 0;
  // Its integer still reaches the attributes cached with it (MPI 4.1 §7.7.2), but sets no new one.
  EXPECT_EQ(MPI_Comm_get_attr(MPI_COMM_WORLD, k1_copy, &v, &flag), MPI_SUCCESS);
  EXPECT_TRUE(flag);
  EXPECT_EQ(v, reinterpret_cast<void *>(100));
  Comm *self = comm_self();
  EXPECT_EQ(cls(MPI_Comm_get_attr(MPI_COMM_SELF, k1_copy, &v, &flag)), MPI_ERR_KEYVAL);
  EXPECT_EQ(self->attrs.count(k1_copy), 0u);
  deletes = 0;
  deleted_values.clear();
  ASSERT_EQ(attrs_delete_all(to, "test"), MPI_SUCCESS);
  EXPECT_EQ(deletes, 2);
  // Reverse order of setting: k2's copy was set after k1's.
  EXPECT_EQ(deleted_values, (std::vector<intptr_t>{200, 101}));
  comm_release(to);

  // Overwrite deletes the old value; delete order follows the latest set.
  deleted_values.clear();
  MPI_Comm_set_attr(MPI_COMM_WORLD, k3, reinterpret_cast<void *>(301));
  EXPECT_EQ(deleted_values, (std::vector<intptr_t>{300}));
  deleted_values.clear();
  ASSERT_EQ(attrs_delete_all(w, "test"), MPI_SUCCESS);
  EXPECT_EQ(deleted_values, (std::vector<intptr_t>{301, 200, 100}));
  EXPECT_TRUE(w->attrs.empty());

  // Predefined attributes: pointers to ints; they cannot be set.
  int *tag_ub = nullptr;
  ASSERT_EQ(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &tag_ub, &flag), MPI_SUCCESS);
  EXPECT_TRUE(flag);
  EXPECT_GE(*tag_ub, 32767);
  EXPECT_EQ(cls(MPI_Comm_set_attr(MPI_COMM_WORLD, MPI_TAG_UB, nullptr)), MPI_ERR_KEYVAL);
  EXPECT_EQ(cls(MPI_Comm_free_keyval(&k1_copy)), MPI_ERR_KEYVAL);
  MPI_Comm_free_keyval(&k2);
  MPI_Comm_free_keyval(&k3);
}
