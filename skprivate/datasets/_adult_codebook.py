"""What the public codebook (``adult.names``) says about the UCI Adult data.

Everything here is transcribed from the codebook or fixed by hand; none of it is computed
from the rows. The data-independent preprocessor relies on that: its one-hot categories
and numeric ranges come from this module, so fitting it reveals nothing about the data.
"""

__all__ = [
    "CATEGORICAL_FEATURES",
    "CATEGORIES",
    "CLASS_NAMES",
    "FEATURE_NAMES",
    "NUMERIC_BOUNDS",
    "NUMERIC_FILL",
    "NUMERICAL_FEATURES",
]

# Column order of adult.data / adult.test (and of the codebook), without the label.
FEATURE_NAMES = (
    "age",
    "workclass",
    "fnlwgt",
    "education",
    "education-num",
    "marital-status",
    "occupation",
    "relationship",
    "race",
    "sex",
    "capital-gain",
    "capital-loss",
    "hours-per-week",
    "native-country",
)

# Category lists in the codebook's own order (not sorted), so that one-hot columns follow it.
# fmt: off
CATEGORIES = {
    "workclass": (
        "Private", "Self-emp-not-inc", "Self-emp-inc", "Federal-gov", "Local-gov",
        "State-gov", "Without-pay", "Never-worked",
    ),
    "education": (
        "Bachelors", "Some-college", "11th", "HS-grad", "Prof-school", "Assoc-acdm",
        "Assoc-voc", "9th", "7th-8th", "12th", "Masters", "1st-4th", "10th", "Doctorate",
        "5th-6th", "Preschool",
    ),
    "marital-status": (
        "Married-civ-spouse", "Divorced", "Never-married", "Separated", "Widowed",
        "Married-spouse-absent", "Married-AF-spouse",
    ),
    "occupation": (
        "Tech-support", "Craft-repair", "Other-service", "Sales", "Exec-managerial",
        "Prof-specialty", "Handlers-cleaners", "Machine-op-inspct", "Adm-clerical",
        "Farming-fishing", "Transport-moving", "Priv-house-serv", "Protective-serv",
        "Armed-Forces",
    ),
    "relationship": (
        "Wife", "Own-child", "Husband", "Not-in-family", "Other-relative", "Unmarried",
    ),
    "race": ("White", "Asian-Pac-Islander", "Amer-Indian-Eskimo", "Other", "Black"),
    "sex": ("Female", "Male"),
    "native-country": (
        "United-States", "Cambodia", "England", "Puerto-Rico", "Canada", "Germany",
        "Outlying-US(Guam-USVI-etc)", "India", "Japan", "Greece", "South", "China", "Cuba",
        "Iran", "Honduras", "Philippines", "Italy", "Poland", "Jamaica", "Vietnam", "Mexico",
        "Portugal", "Ireland", "France", "Dominican-Republic", "Laos", "Ecuador", "Taiwan",
        "Haiti", "Columbia", "Hungary", "Guatemala", "Nicaragua", "Scotland", "Thailand",
        "Yugoslavia", "El-Salvador", "Trinadad&Tobago", "Peru", "Hong", "Holand-Netherlands",
    ),
}
# fmt: on

CATEGORICAL_FEATURES = tuple(name for name in FEATURE_NAMES if name in CATEGORIES)
NUMERICAL_FEATURES = tuple(name for name in FEATURE_NAMES if name not in CATEGORIES)

# Index 0 is the label "<=50K", index 1 is ">50K": ``CLASS_NAMES[y]`` gives the raw label.
CLASS_NAMES = ("<=50K", ">50K")

# Public bounds of the numeric features used by the data-independent preprocessor.
# age and hours-per-week: the extraction rule in the codebook keeps AAGE > 16 and
# HRSWK > 0; the census top-codes age at 90 and the hours field holds two digits.
# education-num: the codebook lists 16 education levels, numbered 1 to 16.
# capital-gain/-loss: 99 999 dollars, the largest five-digit amount, is a bound fixed by
# hand. The largest capital loss in the training file (4 356) is deliberately NOT used:
# it is a statistic of the rows, and a bound read from private rows leaks them.
# fnlwgt is not listed: it is a survey weight with no public upper bound, and the
# preprocessor drops it.
NUMERIC_BOUNDS = {
    "age": (17.0, 90.0),
    "education-num": (1.0, 16.0),
    "capital-gain": (0.0, 99999.0),
    "capital-loss": (0.0, 99999.0),
    "hours-per-week": (1.0, 99.0),
}

# Values imputed for missing numerics (the raw files have none, but user data may). They are
# conventions, not estimates: a 40-hour full-time week, age 40, a high-school diploma
# (education-num 9, "HS-grad") and no capital income.
NUMERIC_FILL = {
    "age": 40.0,
    "education-num": 9.0,
    "capital-gain": 0.0,
    "capital-loss": 0.0,
    "hours-per-week": 40.0,
}
