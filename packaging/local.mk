# Packaging: systemd unit, SysV init script, RPM spec, default configuration.
