// plasmient._core: the Python package's view of the engine. Thin on purpose: it hands paths and
// flags to cli::AnalyzeEmbedded and gives back the outputs the CLI writes (JSON, HTML, the
// terminal box); the Python side (python/plasmient) builds the Verdict object from the JSON.
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "cli/embedded_analysis.h"
#include "export/terminal_sink.h"
#include "export/verdict_json_sink.h"

namespace py = pybind11;

namespace {

// Raised as plasmient.Error: the one-line message the CLI would print.
struct AnalysisError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

plasmient::cli::EmbeddedJob Analyze(const std::vector<std::string>& inputs,
                                    const std::vector<std::string>& flags) {
  plasmient::Result<plasmient::cli::EmbeddedJob> job;
  {
    py::gil_scoped_release unlocked;  // reading a job takes seconds; other Python threads go on
    job = plasmient::cli::AnalyzeEmbedded(inputs, flags);
  }
  if (!job) throw AnalysisError(job.error().message);
  return std::move(*job);
}

}  // namespace

PYBIND11_MODULE(_core, m) {
  using plasmient::cli::EmbeddedJob;
  m.doc() = "Plasmient's engine; use the plasmient package, not this module.";
  py::register_exception<AnalysisError>(m, "Error");
  py::class_<EmbeddedJob>(m, "Job")
      .def_readonly("title", &EmbeddedJob::title)
      .def_readonly("warnings", &EmbeddedJob::warnings)
      .def_readonly("no_gpu_activity", &EmbeddedJob::no_gpu_activity)
      .def("json", [](const EmbeddedJob& j) { return plasmient::exporting::VerdictToJson(j.job); })
      .def("html", &plasmient::cli::HtmlOf)
      .def(
          "terminal",
          [](const EmbeddedJob& j, bool color, bool details) {
            return plasmient::exporting::RenderTerminal(
                j.job,
                {.title = j.title, .color = color, .details = details, .explain_command = j.explain_command});
          },
          py::arg("color") = false, py::arg("details") = true);
  m.def("analyze", &Analyze, py::arg("inputs"), py::arg("flags"),
        "Analyzes trace files or folders with the flags of `plasmient analyze`.");
}
