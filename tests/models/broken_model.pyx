# Deliberately invalid Cython: compile_model must report the file.
def f():
    cdef undefined_type x
    return x
