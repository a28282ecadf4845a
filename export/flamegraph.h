/* Self-contained interactive SVG flame graph (and differential flame graph)
 * of a profile window: one file, no external resources, zoom/search/tooltips
 * in embedded script. The UI is described in doc/flamegraph.md. */
#ifndef SMOLDER_EXPORT_FLAMEGRAPH_H
#define SMOLDER_EXPORT_FLAMEGRAPH_H
#include <stddef.h>
#include <stdio.h>

struct profile;

/* Default bound on the frames drawn; narrower frames beyond it are left out
 * (their samples stay in their parents' widths). */
#define FLAMEGRAPH_MAX_FRAMES 200000
/* Fill of a frame whose share did not change (differential graphs). */
#define FLAMEGRAPH_DIFF_NEUTRAL "rgb(245,245,245)"
/* Fill of frames matched by a search (set by the script). */
#define FLAMEGRAPH_SEARCH_FILL "rgb(230,0,230)"

struct flamegraph_opts {
	const char *title;          /* NULL: built from p's meta ("Flame graph: HOST,
				     * START – END UTC") */
	const char *subtitle;       /* NULL: "N samples (EVENT, F Hz)", or for a
				     * diff the totals of both profiles */
	int icicle;                 /* root at the top */
	const struct profile *base; /* non-NULL: differential against base */
	unsigned width;             /* image width in px; 0: 1200 */
	double min_width_px;        /* frames narrower than this are not drawn (0:
				     * every frame with a sample); default 0.1 */
	size_t max_frames;          /* 0: FLAMEGRAPH_MAX_FRAMES */
};

/* Fills *o with the defaults (what o == NULL to flamegraph__write means). */
void flamegraph__opts_init(struct flamegraph_opts *o);

/* Writes p as an SVG document to out.
 *
 * Tree: the root frame "all" holds every aggregated sample; its children are
 * one frame per process name (the group's comm, else its service_name, else
 * "[unknown]"; groups with the same name merge, as in the collapsed output
 * with COLLAPSED_WITH_COMM); for a group of one thread, its thread frame
 * ("[thread NAME]", collapsed__append_thread) below its process frame;
 * below them the stacks, root first, siblings merged by frame name and
 * sorted by name. A sample with an empty stack is self time of its process
 * (or thread) frame. Widths are proportional to samples.
 *
 * Differential (o->base): widths and tree are p's; each frame's fill shows
 * the change of its share (frame samples / profile total) from base to p:
 * red grew, blue shrank, FLAMEGRAPH_DIFF_NEUTRAL unchanged, saturation
 * proportional to |change| over the largest |change| drawn (at least 0.1
 * percentage point). Frames are matched by their path of names; a frame
 * absent from base counts as grown; frames only in base are not drawn.
 *
 * Frame names are sanitized (bytes that are not valid UTF-8 become U+FFFD,
 * control characters '?') and XML-escaped; so are title and subtitle.
 * Every drawn frame is `<g class="f" data-n="SAMPLES" data-s="OFFSET">` with a
 * <title> tooltip "NAME (N samples, P%...)", a <rect> and a <text> label.
 *
 * Returns 0, -EINVAL (p NULL, width < 100 or > 100000), -ENOMEM, or -EIO when
 * out reports a write error. Allocates per call; modifies neither profile.
 * Not thread-safe only in the sense that p must not change meanwhile. */
int flamegraph__write(const struct profile *p, const struct flamegraph_opts *o, FILE *out);

#endif
