// A traced process without a GPU, for the live tests: the duty-cycled agent with its CUPTI and
// NVML seams faked (collect/testing/fake_seams.h) runs for a while and writes its windows into a
// spool, then prints what it fed as one JSON line.
//   live_driver SPOOL JOB RANK PERIOD_S WINDOW_S SECONDS
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>

#include "collect/agent/agent.h"
#include "collect/nvml/nvml_sampler.h"
#include "collect/testing/fake_seams.h"

int main(int argc, char** argv) {
  using namespace plasmient::collect;
  if (argc != 7) {
    std::fprintf(stderr, "usage: live_driver SPOOL JOB RANK PERIOD_S WINDOW_S SECONDS\n");
    return 2;
  }
  AgentConfig c;
  c.spool = c.out_dir = argv[1];
  c.job_id = argv[2];
  c.rank = std::atoi(argv[3]);
  c.world_size = c.rank + 1;
  c.period_s = std::atof(argv[4]);
  c.window_s = std::atof(argv[5]);
  c.phase_on_wall_clock = false;  // windows phased from the start: the test's timings
  c.pid = getpid();
  c.host = "live-node";
  Agent agent(c, SinkOptions{});
  if (std::string why = agent.Start(); !why.empty()) {
    std::fprintf(stderr, "live_driver: %s\n", why.c_str());
    return 1;
  }
  nvml::NvmlSampler sampler(agent.sink(), fake::Nvml(agent), 20, &fake::OneDevice, -1);
  std::string why;
  if (!sampler.Init(why)) return 1;
  sampler.Start();
  fake::KernelPlan plan;
  fake::FakeCupti cupti(agent, plan);
  std::this_thread::sleep_for(std::chrono::duration<double>(std::atof(argv[6])));
  cupti.Stop();
  sampler.Stop();
  agent.Shutdown();
  double flops =
      2.0 * static_cast<double>(plan.m) * static_cast<double>(plan.n) * static_cast<double>(plan.k);
  std::printf(
      "{\"kernels\": %lld, \"kernel_ns\": %llu, \"flops_per_kernel\": %.0f, \"tensor_pct_window\": %g, "
      "\"tensor_pct_between\": %g, \"files_written\": %llu, \"files_dropped\": %llu}\n",
      static_cast<long long>(cupti.fed()), static_cast<unsigned long long>(plan.kernel_ns), flops,
      fake::g_tensor_pct_window.load(), fake::g_tensor_pct_between.load(),
      static_cast<unsigned long long>(agent.writer().files_written()),
      static_cast<unsigned long long>(agent.writer().files_dropped()));
  return 0;
}
