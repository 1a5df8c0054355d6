"""Every upstream API that skprivate uses outside the published ones, checked on a tiny input.

A failure here means an upstream release removed or changed something that
``skprivate/utils/_compat.py`` (or a module the house style allows) relies on: fix the compat
module, then raise the upper bound in ``pyproject.toml``.
"""

import pickle
import warnings
from numbers import Real

import dp_accounting
import numpy as np
import pandas as pd
import pytest
from dp_accounting import rdp
from sklearn.base import BaseEstimator
from sklearn.exceptions import NotFittedError
from sklearn.linear_model import LogisticRegression, Ridge
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.utils.validation import check_is_fitted

from skprivate.utils import _compat


def test_get_tags_reads_estimator_type():
    assert _compat.get_tags(LogisticRegression()).estimator_type == "classifier"
    assert _compat.get_tags(Ridge()).estimator_type == "regressor"
    assert _compat.get_tags(LogisticRegression()).input_tags.allow_nan is False


def test_check_feature_names_sets_warns_and_raises():
    est = BaseEstimator()
    frame = pd.DataFrame({"age": [1.0, 2.0], "hours": [3.0, 4.0]})
    _compat.check_feature_names(est, frame, reset=True)
    assert est.feature_names_in_.tolist() == ["age", "hours"]
    assert not hasattr(est, "n_features_in_")  # names only: callers count features
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        _compat.check_feature_names(est, frame.to_numpy(), reset=False)
    assert any("does not have valid feature names" in str(w.message) for w in caught)
    with pytest.raises(ValueError, match="feature names should match"):
        _compat.check_feature_names(est, frame.rename(columns={"age": "x"}), reset=False)
    fresh = BaseEstimator()
    _compat.check_feature_names(fresh, frame.to_numpy(), reset=True)
    assert not hasattr(fresh, "feature_names_in_")


def test_safe_indexing_keeps_the_container_type():
    frame = pd.DataFrame({"a": [0, 1, 2]}, index=[10, 11, 12])
    rows = _compat.safe_indexing(frame, [2, 0])
    assert isinstance(rows, pd.DataFrame) and rows["a"].tolist() == [2, 0]
    assert _compat.safe_indexing([5, 6, 7], [1]) == [6]


def test_rdp_curve_matches_the_gaussian_closed_form():
    # Mironov (2017), Proposition 7: the Gaussian mechanism's RDP is alpha / (2 sigma^2).
    orders = [1.5, 2.0, 8.0, 64.0]
    accountant = rdp.RdpAccountant(orders)
    accountant.compose(dp_accounting.GaussianDpEvent(2.0), count=3)
    curve = _compat.rdp_curve(accountant)
    np.testing.assert_allclose(curve, 3 * np.asarray(orders) / 8.0, rtol=1e-12)
    curve[:] = 0.0  # a copy: the accountant's ledger is untouched
    np.testing.assert_allclose(_compat.rdp_curve(accountant), 3 * np.asarray(orders) / 8.0)


def test_rdp_curve_refuses_loudly_when_the_curve_is_gone():
    class Stripped:  # what an RdpAccountant without either attribute would look like
        orders = np.array([2.0, 3.0])

    with pytest.raises(_compat.UpstreamAPIError, match=r"dp-accounting.*<0\.7"):
        _compat.rdp_curve(Stripped())


def test_torch_cross_example_norms_cover_every_batch_norm():
    torch = pytest.importorskip("torch")
    batch_norms, instance_norms = _compat.torch_cross_example_norms()
    nn = torch.nn
    for layer in (nn.BatchNorm1d(2), nn.BatchNorm2d(2), nn.BatchNorm3d(2), nn.SyncBatchNorm(2)):
        assert isinstance(layer, batch_norms)
    for layer in (nn.InstanceNorm1d(2), nn.InstanceNorm2d(2), nn.InstanceNorm3d(2)):
        assert isinstance(layer, instance_norms)
    for layer in (nn.LayerNorm(2), nn.GroupNorm(1, 2), nn.Linear(2, 2)):
        assert not isinstance(layer, batch_norms + instance_norms)


def test_sklearn_private_modules_the_style_allows():
    # House style: estimators import these two private scikit-learn names directly.
    from sklearn.base import _fit_context
    from sklearn.utils._param_validation import (
        HasMethods,
        Interval,
        StrOptions,
        validate_parameter_constraints,
        validate_params,
    )

    assert Interval(Real, 0, 1, closed="neither").is_satisfied_by(0.5)
    assert not Interval(Real, 0, 1, closed="neither").is_satisfied_by(1.0)
    assert StrOptions({"rdp"}).is_satisfied_by("rdp")
    assert HasMethods(["fit"]).is_satisfied_by(Ridge())
    with pytest.raises(ValueError, match="alpha"):
        validate_parameter_constraints(
            {"alpha": [Interval(Real, 0, None, closed="left")]}, {"alpha": -1.0}, "f"
        )
    assert callable(validate_params) and callable(_fit_context)


def test_skorch_utilities_the_nets_use():
    torch = pytest.importorskip("torch")
    from skorch.dataset import get_len, unpack_data
    from skorch.utils import TeeGenerator, is_dataset, to_tensor

    assert torch.is_tensor(to_tensor(np.zeros(2, dtype=np.float32), device="cpu"))
    assert is_dataset(torch.utils.data.TensorDataset(torch.zeros(2)))
    assert not is_dataset(np.zeros(2))
    tee = TeeGenerator(iter([1, 2]))
    assert list(tee) == [1, 2] and list(tee) == [1, 2]  # re-iterable
    assert get_len(np.zeros((3, 2))) == 3
    assert unpack_data((1, 2)) == (1, 2)


def test_skorch_nets_follow_scikit_learns_protocols():
    # pyproject.toml's skorch lower bound (1.3.1) rests on this. skorch < 1.1 nets are no
    # BaseEstimator: scikit-learn 1.6 warns and falls back to default tags, >= 1.7 raises in
    # get_tags (a Pipeline or PATE teacher holding a net fails); skorch < 1.3 passes
    # check_is_fitted before fit and cannot unpickle a net under torch >= 2.6
    # (weights_only); skorch 1.3.0's __sklearn_is_fitted__ fails a fitted net.
    torch = pytest.importorskip("torch")
    from skorch import NeuralNetClassifier

    net = NeuralNetClassifier(torch.nn.Linear(2, 2))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        tags = _compat.get_tags(net)
        pipeline_tags = _compat.get_tags(make_pipeline(StandardScaler(), net))
    assert tags.estimator_type == "classifier"
    assert pipeline_tags.estimator_type == "classifier"
    with pytest.raises(NotFittedError):
        check_is_fitted(net)
    net.initialize()
    check_is_fitted(net)
    restored = pickle.loads(pickle.dumps(net))
    weight = restored.module_.weight.detach().numpy()
    np.testing.assert_array_equal(weight, net.module_.weight.detach().numpy())
