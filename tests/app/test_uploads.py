"""Uploaded input data for the Models page: numeric CSV and .npy only, every refusal saying what and where."""

import io

import numpy as np
import pytest

from gradlib import ExpressionError, InputError
from dashboard.uploads import load_batch


def npy(array, **kw):
    buf = io.BytesIO()
    np.save(buf, array, **kw)
    return buf.getvalue()


def test_csv_with_and_without_header():
    expected = [[1.0, 2.0], [3.5, -4.0]]
    assert load_batch(b"a,b\n1,2\n3.5,-4\n", "x.csv", expected_features=2).tolist() == expected
    assert load_batch(b"1,2\r\n3.5,-4\r\n\r\n", "X.CSV", expected_features=2).tolist() == expected


def test_csv_is_reshaped_to_the_sample_shape():
    x = load_batch(b"1,2,3,4,5,6\n", "seq.csv", expected_features=6, sample_shape=(3, 2))
    assert x.shape == (1, 3, 2) and x[0, 2].tolist() == [5.0, 6.0]


@pytest.mark.parametrize("data, message", [
    (b"1,2,3\n4,5\n", "the CSV is ragged: row 2 has 2 value\\(s\\), but the first row has 3"),
    (b"x,y,z\n1,2,3\n4,abc,6\n", "row 3, column 2: 'abc' is not a number"),
    (b"1,2,3\n4,nan,6\n", "row 2, column 2: 'nan' is not a finite number"),
    (b"1,2,3\n4,5,inf\n", "row 2, column 3: 'inf' is not a finite number"),
    (b"1,2\n3,4\n", r"the CSV has 2 column\(s\) per row, but the model takes 3 input value\(s\) per sample"),
    (b"1,2;3,4\n", "row 1, column 2: '2;3' is not a number \\(separate values with commas\\)"),
    (b"a;b;c\n1;2;3\n", r"has 1 column\(s\) per row.*with 3 numbers separated by commas"),
    (b"a,b,c\n", "the CSV has no data rows"),
    (b"", "the file 'x.csv' is empty"),
    (b"1,2,\xff\n", "the CSV is not UTF-8 text"),
    (b"1_0,2,3\n", "row 1, column 1: '1_0' is not a number"),
    (b"1,2,3\n4,1e300,-1e39\n", r"row 2, column 2: '1e300' is outside float32's range \(about ±3\.4e38\), in which "
                                r"the models compute: it would become infinite \(1 more value\(s\) too\)\. Scale"),
    (b"1,2,3\n" + b"1" * 140_000 + b",2,3\n", r"the CSV cannot be read at line 2: a field is longer than 131,072 "
                                            r"characters\. Put one number per field, separated by commas"),
])
def test_bad_csv_uploads_are_refused_with_where(data, message):
    with pytest.raises(InputError, match=message):
        load_batch(data, "x.csv", expected_features=3)


def test_npy_batches_and_single_samples_load():
    x = np.arange(6, dtype=np.float64).reshape(2, 3)
    got = load_batch(npy(x), "x.npy", expected_features=3)
    assert got.dtype == np.float32 and got.tolist() == x.tolist()
    assert load_batch(npy(np.ones(3, np.int16)), "x.npy", expected_features=3).shape == (1, 3)
    seq = load_batch(npy(np.ones((4, 6))), "x.npy", expected_features=6, sample_shape=(3, 2))
    assert seq.shape == (4, 3, 2)


def test_npy_holding_a_pickle_is_refused_without_unpickling():
    data = npy(np.array([{"a": 1}, None], dtype=object), allow_pickle=True)
    with pytest.raises(InputError, match="dtype object; only real numbers are accepted"):
        load_batch(data, "evil.npy", expected_features=2)


@pytest.mark.parametrize("data, message", [
    (npy(np.ones((2, 4))), r"shape \(2, 4\), but the model takes samples of shape \(3,\)"),
    (npy(np.array([[1.0, np.nan, 2.0]])), r"NaN or infinite value at index \(0, 1\)"),
    (npy(np.array([[1.0, 2.0, 1e300], [1e300, 1.0, 1.0]])),
     r"the \.npy array holds 1e\+300 at index \(0, 2\), outside float32's range \(about ±3\.4e38\), in which the "
     r"models compute: it would become infinite \(1 more value\(s\) too\)"),
    (npy(np.array([["a", "b", "c"]])), "only real numbers are accepted"),
    (npy(np.ones((0, 3))), r"shape \(0, 3\)"),
    (b"not an npy file", "not a valid .npy array"),
])
def test_bad_npy_uploads_are_refused(data, message):
    with pytest.raises(InputError, match=message):
        load_batch(data, "x.npy", expected_features=3)


def test_an_npy_header_claiming_a_huge_array_is_refused_before_allocating():
    buf = io.BytesIO()
    np.lib.format.write_array_header_1_0(buf, {"descr": "<f8", "fortran_order": False, "shape": (10**12, 3)})
    forged = buf.getvalue() + np.ones(6).tobytes()
    with pytest.raises(InputError, match=r"claims shape \(1000000000000, 3\), larger than the file"):
        load_batch(forged, "x.npy", expected_features=3)


def test_oversized_uploads_and_model_files_are_refused():
    with pytest.raises(InputError, match=r"the file is 3.0 MB; at most 2.0 MB are accepted"):
        load_batch(b"1," * 1_500_000, "big.csv", expected_features=3)
    with pytest.raises(InputError, match=r"upload a .csv or .npy file.*model files are never loaded"):
        load_batch(b"\x89HDF\r\n", "model.h5", expected_features=3)
    with pytest.raises(InputError, match="holds 5 samples; at most 4 are accepted"):
        load_batch(b"1,2,3\n" * 5, "x.csv", expected_features=3, max_rows=4)


def test_code_that_caught_expression_error_for_a_bad_upload_still_catches_it():
    with pytest.raises(ExpressionError, match=r"row 1, column 2: 'abc' is not a number") as info:
        load_batch(b"1,abc,3\n", "x.csv", expected_features=3)
    assert type(info.value) is InputError and info.value.column is None


def test_exactly_max_rows_samples_are_accepted_and_one_more_is_refused():
    from gradlib.keras_models import MAX_BATCH   # the default: the largest batch the Models page runs
    for rows, limit in ((4, 4), (MAX_BATCH, None)):
        options = {} if limit is None else {"max_rows": limit}
        for data, name in ((b"1,2,3\n" * rows, "x.csv"), (npy(np.ones((rows, 3))), "x.npy")):
            assert load_batch(data, name, expected_features=3, **options).shape == (rows, 3)
        more = rows + 1
        for data, name in ((b"1,2,3\n" * more, "x.csv"), (npy(np.ones((more, 3))), "x.npy")):
            with pytest.raises(InputError, match=rf"holds {more:,} samples; at most {rows:,} are accepted"):
                load_batch(data, name, expected_features=3, **options)
