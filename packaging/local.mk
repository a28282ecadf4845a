# Packaging: systemd unit, SysV init script, RPM spec, default configuration.
#
# The unit, the init script and the spec are made from their .in files with
# the installation directories of this build, substituted at make time so
# that `make prefix=... install` and DESTDIR behave as usual.
#
# Installed (make install, and the RPM):
#   $(bindir)/smolder                          cli/local.mk
#   $(man8dir)/smolder.8                       cli/local.mk
#   $(systemdsystemunitdir)/smolder.service    default $(prefix)/lib/systemd/system
#   $(initddir)/smolder                        default $(sysconfdir)/init.d, mode 0755
#   $(sysconfdir)/smolder/smolder.conf         only if absent: an edited copy is kept;
#                                              mode 0640: it may name a url with credentials
#   $(localstatedir)/lib/smolder/              mode 0700 (the spool's parent)
#   $(localstatedir)/cache/smolder/            mode 0700 (cache_dir)
# Override a directory on the make command line, e.g.
#   make install systemdsystemunitdir=/usr/lib/systemd/system initddir=/etc/rc.d/init.d

systemdsystemunitdir = $(prefix)/lib/systemd/system
initddir = $(sysconfdir)/init.d
smolderconfdir = $(sysconfdir)/smolder
smolderstatedir = $(localstatedir)/lib/smolder
smoldercachedir = $(localstatedir)/cache/smolder

nodist_systemdsystemunit_DATA = packaging/smolder.service
# Built with the program (installed by the rules below, under another name).
nodist_noinst_DATA = packaging/smolder.init packaging/smolder.spec
CLEANFILES += packaging/smolder.service packaging/smolder.init packaging/smolder.spec

EXTRA_DIST += \
	packaging/smolder.conf \
	packaging/smolder.service.in \
	packaging/smolder.init.in \
	packaging/smolder.spec.in
dist_doc_DATA += doc/compat.md

packaging_edit = sed \
	-e 's|@bindir[@]|$(bindir)|g' \
	-e 's|@sysconfdir[@]|$(sysconfdir)|g' \
	-e 's|@localstatedir[@]|$(localstatedir)|g' \
	-e 's|@PACKAGE_VERSION[@]|$(PACKAGE_VERSION)|g'

packaging/smolder.service: $(srcdir)/packaging/smolder.service.in Makefile
	$(AM_V_GEN)$(MKDIR_P) packaging && rm -f $@ $@.tmp && \
	$(packaging_edit) $(srcdir)/packaging/smolder.service.in >$@.tmp && mv $@.tmp $@
packaging/smolder.init: $(srcdir)/packaging/smolder.init.in Makefile
	$(AM_V_GEN)$(MKDIR_P) packaging && rm -f $@ $@.tmp && \
	$(packaging_edit) $(srcdir)/packaging/smolder.init.in >$@.tmp && \
	chmod +x $@.tmp && mv $@.tmp $@
packaging/smolder.spec: $(srcdir)/packaging/smolder.spec.in Makefile
	$(AM_V_GEN)$(MKDIR_P) packaging && rm -f $@ $@.tmp && \
	$(packaging_edit) $(srcdir)/packaging/smolder.spec.in >$@.tmp && mv $@.tmp $@

# The tarball carries the spec, so that `rpmbuild -tb smolder-VERSION.tar.gz` works.
dist-hook: packaging-dist-hook
packaging-dist-hook:
	$(packaging_edit) $(srcdir)/packaging/smolder.spec.in >$(distdir)/packaging/smolder.spec

install-data-local: packaging-install-data-local
packaging-install-data-local: packaging/smolder.init
	$(MKDIR_P) '$(DESTDIR)$(initddir)'
	$(INSTALL_SCRIPT) packaging/smolder.init '$(DESTDIR)$(initddir)/smolder'
	$(MKDIR_P) '$(DESTDIR)$(smolderconfdir)'
	@if test -f '$(DESTDIR)$(smolderconfdir)/smolder.conf'; then \
	  echo "keeping the existing $(DESTDIR)$(smolderconfdir)/smolder.conf" \
	       "(the new default is $(srcdir)/packaging/smolder.conf)"; \
	else \
	  echo " $(INSTALL) -m 0640 $(srcdir)/packaging/smolder.conf '$(DESTDIR)$(smolderconfdir)/smolder.conf'"; \
	  $(INSTALL) -m 0640 $(srcdir)/packaging/smolder.conf '$(DESTDIR)$(smolderconfdir)/smolder.conf'; \
	fi
	$(MKDIR_P) '$(DESTDIR)$(smolderstatedir)'
	chmod 0700 '$(DESTDIR)$(smolderstatedir)'
	$(MKDIR_P) '$(DESTDIR)$(smoldercachedir)'
	chmod 0700 '$(DESTDIR)$(smoldercachedir)'

# The configuration goes only if it is still the default; the state directory
# only if empty (undelivered dumps are kept); the cache always (regenerable).
uninstall-local: packaging-uninstall-local
packaging-uninstall-local:
	rm -f '$(DESTDIR)$(initddir)/smolder'
	@f='$(DESTDIR)$(smolderconfdir)/smolder.conf'; \
	if test -f "$$f"; then \
	  if cmp -s $(srcdir)/packaging/smolder.conf "$$f"; then \
	    echo " rm -f $$f"; rm -f "$$f"; \
	  else \
	    echo "keeping $$f: it differs from the default"; \
	  fi; \
	fi
	@rmdir '$(DESTDIR)$(smolderconfdir)' 2>/dev/null || :
	@rmdir '$(DESTDIR)$(smolderstatedir)' 2>/dev/null || :
	rm -rf '$(DESTDIR)$(smoldercachedir)'

# An RPM from the tarball with the rpmbuild of this host.
rpm: dist-gzip
	rpmbuild $(RPMBUILD_FLAGS) -tb $(distdir).tar.gz

.PHONY: packaging-dist-hook packaging-install-data-local packaging-uninstall-local rpm

# --- Tests --------------------------------------------------------------------
PACKAGING_TESTS = \
	tests/packaging/install.sh \
	tests/packaging/unit.sh \
	tests/packaging/init_cycle.sh \
	tests/packaging/rpm.sh
TESTS += $(PACKAGING_TESTS)
EXTRA_DIST += $(PACKAGING_TESTS) tests/packaging/lib.sh

# The installation directories, for the packaging tests.
packaging-print-dirs:
	@echo "bindir='$(bindir)'"; echo "mandir='$(mandir)'"; \
	echo "sysconfdir='$(sysconfdir)'"; echo "localstatedir='$(localstatedir)'"; \
	echo "docdir='$(docdir)'"; echo "systemdsystemunitdir='$(systemdsystemunitdir)'"; \
	echo "initddir='$(initddir)'"; echo "PACKAGE_VERSION='$(PACKAGE_VERSION)'"
.PHONY: packaging-print-dirs
