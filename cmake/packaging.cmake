# fleetwave's install layout and its Debian package (issue 15; tests/systemd/package_test.py).
#
#   bin/fleetwave                                the daemon and CLI
#   lib/systemd/system/fleetwave.service         the hardened Type=notify unit (systemd/)
#   lib/sysusers.d/fleetwave.conf                its system user
#   lib/tmpfiles.d/fleetwave.conf                its directories
#   /etc/fleetwave/fleetwave.yaml                an example configuration (a conffile in the .deb)
#   share/fleetwave/prometheus/alerts.yaml       the alert rules, when examples/prometheus has them
#   share/doc/fleetwave/                         README and the guestbook example
#
# A system service: the unit runs /usr/bin/fleetwave with /etc/fleetwave/fleetwave.yaml, so the
# install prefix defaults to /usr (an explicit -DCMAKE_INSTALL_PREFIX still wins) and the
# configuration always goes to the absolute /etc/fleetwave, whatever the prefix. Stage an install
# with DESTDIR: `DESTDIR=/tmp/root cmake --install build` (the .deb is built the same way).
#
# `cpack -G DEB` builds the .deb: dependencies from dpkg-shlibdeps (libcaf, libcurl4, yaml-cpp,
# SQLite, libgit2, libsystemd0, libssl3, ... exactly what the binary links) plus systemd for the
# maintainer scripts (systemd/debian/), which create the user and directories and reload systemd.
if(CMAKE_INSTALL_PREFIX_INITIALIZED_TO_DEFAULT)
  set(CMAKE_INSTALL_PREFIX "/usr" CACHE PATH "Install prefix" FORCE)
endif()
include(GNUInstallDirs)

install(TARGETS fleetwave RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(FILES ${CMAKE_SOURCE_DIR}/systemd/fleetwave.service DESTINATION lib/systemd/system)
install(FILES ${CMAKE_SOURCE_DIR}/systemd/fleetwave.sysusers DESTINATION lib/sysusers.d
        RENAME fleetwave.conf)
install(FILES ${CMAKE_SOURCE_DIR}/systemd/fleetwave.tmpfiles DESTINATION lib/tmpfiles.d
        RENAME fleetwave.conf)
set(FLEETWAVE_CONFIG_DIR "/etc/fleetwave")  # fleetwave.service's ExecStart reads it
install(FILES ${CMAKE_SOURCE_DIR}/systemd/fleetwave.yaml DESTINATION ${FLEETWAVE_CONFIG_DIR})
# Another part of issue 15 writes the rules; OPTIONAL so the package builds before they land.
install(FILES ${CMAKE_SOURCE_DIR}/examples/prometheus/alerts.yaml
        DESTINATION ${CMAKE_INSTALL_DATADIR}/fleetwave/prometheus OPTIONAL)
install(FILES ${CMAKE_SOURCE_DIR}/README.md DESTINATION ${CMAKE_INSTALL_DOCDIR} OPTIONAL)
install(DIRECTORY ${CMAKE_SOURCE_DIR}/examples/guestbook
        DESTINATION ${CMAKE_INSTALL_DOCDIR}/examples)

set(CPACK_PACKAGE_NAME "fleetwave")
set(CPACK_PACKAGE_VENDOR "fleetwave")
set(CPACK_PACKAGE_CONTACT "fleetwave maintainers <fleetwave@example.org>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "progressive rollouts of Argo CD ApplicationSets across Kubernetes clusters")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_GENERATOR "DEB")
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION "admin")
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# The maintainer scripts run systemd-sysusers and systemd-tmpfiles.
set(CPACK_DEBIAN_PACKAGE_DEPENDS "systemd")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "prometheus")
# The example configuration is the operator's to edit: a conffile, kept across upgrades.
file(WRITE ${CMAKE_BINARY_DIR}/debian/conffiles "${FLEETWAVE_CONFIG_DIR}/fleetwave.yaml\n")
set(CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA
    ${CMAKE_SOURCE_DIR}/systemd/debian/postinst ${CMAKE_SOURCE_DIR}/systemd/debian/prerm
    ${CMAKE_SOURCE_DIR}/systemd/debian/postrm ${CMAKE_BINARY_DIR}/debian/conffiles)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
include(CPack)
