# Install layout and the Debian packages (docs/deploy.md):
#   cmake --install build --prefix DIR         bin/plasmient, lib/plasmient/libplasmient_agent.so
#                                              (when built), share/doc/plasmient, the systemd unit,
#                                              share/plasmient/grafana/plasmient.json
#   cmake --build build --target package       build/plasmient_<version>_<arch>.deb (and
#                                              plasmient-agent_… when the agent is built)
include(GNUInstallDirs)

install(TARGETS plasmient RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT plasmient)
install(FILES README.md DESTINATION ${CMAKE_INSTALL_DOCDIR} COMPONENT plasmient)
install(DIRECTORY docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR} COMPONENT plasmient)
# systemd's own folders sit under lib/ whatever the prefix's libdir is.
install(FILES deploy/systemd/plasmient-serve.service DESTINATION lib/systemd/system COMPONENT plasmient)
install(FILES deploy/systemd/plasmient.sysusers DESTINATION lib/sysusers.d RENAME plasmient.conf
  COMPONENT plasmient)
install(FILES deploy/systemd/plasmient.tmpfiles DESTINATION lib/tmpfiles.d RENAME plasmient.conf
  COMPONENT plasmient)
install(FILES deploy/grafana/plasmient.json DESTINATION ${CMAKE_INSTALL_DATADIR}/plasmient/grafana
  COMPONENT plasmient)
set(components plasmient)
if(TARGET plasmient_agent)
  # Where `plasmient run` looks for it: ../lib/plasmient/ from the binary.
  install(TARGETS plasmient_agent LIBRARY DESTINATION lib/plasmient COMPONENT agent)
  list(APPEND components agent)
endif()

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME plasmient)
set(CPACK_PACKAGE_VENDOR Plasmient)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_COMPONENTS_ALL ${components})
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "Plasmient maintainers")
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
# The analyzer: Depends computed by dpkg-shlibdeps from the libraries the binary links.
set(CPACK_DEBIAN_PLASMIENT_PACKAGE_NAME plasmient)
set(CPACK_DEBIAN_PLASMIENT_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PLASMIENT_PACKAGE_RECOMMENDS systemd)
set(CPACK_DEBIAN_PLASMIENT_PACKAGE_CONTROL_EXTRA ${CMAKE_CURRENT_LIST_DIR}/debian/postinst)
string(CONCAT CPACK_DEBIAN_PLASMIENT_DESCRIPTION
  "GPU trace analysis: achieved fraction of peak, the losses, the bill\n"
  "Reads PyTorch Kineto JSON, Nsight Systems SQLite and its own agent's traces; reports the\n"
  "achieved fraction of peak, the losses that took the rest, fixes and the bill. Includes\n"
  "plasmient serve and its systemd unit for fleet nodes.")
# The live agent loads the CUDA toolkit's CUPTI (not a Debian package) from the path it was
# built against: its Depends names the analyzer only.
set(CPACK_DEBIAN_AGENT_PACKAGE_NAME plasmient-agent)
set(CPACK_DEBIAN_AGENT_PACKAGE_DEPENDS "plasmient (= ${PROJECT_VERSION})")
string(CONCAT CPACK_DEBIAN_AGENT_DESCRIPTION
  "Plasmient live agent for plasmient run (CUPTI, NCCL profiler plugin, NVML)\n"
  "Needs the CUDA toolkit's CUPTI on the GPU machine.")
include(CPack)
