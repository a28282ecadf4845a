/* The style sheet and script embedded in every SVG flame graph (see
 * doc/flamegraph.md for what they do). Both are free of "]]>", so they fit
 * in a CDATA section. */
#ifndef SMOLDER_EXPORT_FLAMEGRAPH_VIEWER_H
#define SMOLDER_EXPORT_FLAMEGRAPH_VIEWER_H

extern const char flamegraph_viewer__style[];
extern const char flamegraph_viewer__script[];

#endif
