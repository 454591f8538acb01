#!/usr/bin/python3
"""bench/heap_profile.py's attribution of jeprof's collapsed stacks (fleet_bench --heap-profile):
a site is the innermost fleetwave frames, not the allocator's frame jeprof's flat view charges."""
import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench"))
import heap_profile  # noqa: E402


class HeapProfileTest(unittest.TestCase):
    def test_short_name_drops_templates_parameters_and_address(self):
        self.assertEqual(
            heap_profile.short_name(
                "std::shared_ptr<nlohmann::basic_json<std::map> const> "
                "fleetwave::engine::reconcile::ApplicationOf<Fn>(AppView const&, long) "
                "[clone .isra.0]<00000000004a1b20>"),
            "std::shared_ptr fleetwave::engine::reconcile::ApplicationOf")
        self.assertEqual(heap_profile.short_name("fleetwave::engine::Render[abi:cxx11](int)"),
                         "fleetwave::engine::Render")

    def test_sites_charge_the_innermost_fleetwave_frames(self):
        stacks = [
            (["start_thread", "fleetwave::actors::Decide(int)", "fleetwave::engine::Json()",
              "operator new(unsigned long)", "malloc_usable_size"], 300),
            (["start_thread", "fleetwave::actors::Decide(int)", "fleetwave::engine::Json()",
              "malloc_usable_size"], 100),
            (["start_thread", "fleetwave::clients::Loop()", "curl_multi_perform"], 200),
            (["start_thread", "CRYPTO_zalloc"], 50),
        ]
        flat, cum = heap_profile.sites(stacks)
        self.assertEqual(flat, [
            ("fleetwave::engine::Json < fleetwave::actors::Decide", 400),
            ("fleetwave::clients::Loop", 200),
            ("(no fleetwave frame) CRYPTO_zalloc", 50)])
        self.assertIn(("fleetwave::actors::Decide", 400), cum)
        self.assertIn(("fleetwave::engine::Json", 400), cum)
        self.assertEqual(cum[0][1], 400)

    def test_malloc_conf_profiles_from_the_start_into_the_directory(self):
        conf = heap_profile.malloc_conf("/tmp/h", "dirty_decay_ms:1000")
        self.assertIn("prof:true", conf)
        self.assertIn("prof_active:true", conf)
        self.assertIn("prof_prefix:/tmp/h/fleetwave", conf)
        self.assertTrue(conf.endswith(",dirty_decay_ms:1000"))


if __name__ == "__main__":
    unittest.main()
