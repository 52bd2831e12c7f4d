# Whole arrays of events through block routines: one block of an array copied
# into a work array of VECTOR_LENGTH lanes, and the lanes that hold events
# copied back.  An array of n events is covered by n_blocks(n) blocks, block
# nb starting at event b = nb L; the lanes of the last block past the last
# event hold a padding value, chosen by the caller so that the block routine
# is defined there, and their results are discarded:
#
#     for nb in range(n_blocks(n)):
#         b = nb * VECTOR_LENGTH
#         load_block(xb, x, b, 0)
#         routine(ob, xb)
#         store_block(out, ob, b)
#
# Included by the test models (include "blocks.pxi") after they cimport
# floating (from cython) and VECTOR_LENGTH (from vecampfit.block); the model
# compiler finds it next to the model.


cdef inline Py_ssize_t n_blocks(Py_ssize_t n) noexcept nogil:
    """The number of blocks of L = VECTOR_LENGTH lanes that cover n events,
    ceil(n / L)."""
    return (n + VECTOR_LENGTH - 1) // VECTOR_LENGTH


cdef inline void load_block(floating *block, const floating[::1] values, Py_ssize_t start,
                            floating padding) noexcept nogil:
    """Copy the events start .. start + L - 1 of values into block.

    Parameters
    ----------
    block : floating *
        The work array of L = VECTOR_LENGTH lanes: block[i] = values[start + i]
        where start + i < len(values), padding elsewhere.
    values : floating[::1]
        The whole array (any length, in the units of the block routine's
        argument).
    start : Py_ssize_t
        The first event of the block, a multiple of L.
    padding : floating
        The value of the lanes past the last event, in the units of values.
    """
    cdef Py_ssize_t i, n = values.shape[0]
    for i in range(VECTOR_LENGTH):
        block[i] = values[start + i] if start + i < n else padding


cdef inline void store_block(floating[::1] values, const floating *block,
                             Py_ssize_t start) noexcept nogil:
    """Copy the lanes of block that hold events back: values[start + i] =
    block[i] where start + i < len(values) (the padding lanes are dropped).

    Parameters
    ----------
    values : floating[::1]
        The whole array of results (any length).
    block : const floating *
        The results of the block routine, L = VECTOR_LENGTH lanes.
    start : Py_ssize_t
        The first event of the block, a multiple of L.
    """
    cdef Py_ssize_t i, n = values.shape[0]
    for i in range(VECTOR_LENGTH):
        if start + i < n:
            values[start + i] = block[i]
