# Fuzz targets (libFuzzer) of every parser of outside input; `make check`
# replays the committed corpora, `make fuzz` fuzzes (issue 7).
