"""The data behind ``skcalib report --demo``: bundled scikit-learn datasets, no network.

Three classifiers are fitted on a stratified training split (75 %) of a binary and a
multiclass dataset that ship with scikit-learn, and their ``predict_proba`` on the test
split (25 %) is what the demo reports.  Everything uses a fixed ``random_state``, so the
printed numbers are reproducible on a given platform and scikit-learn version.
"""

from __future__ import annotations

__all__ = ["DEMO_DATASETS", "demo_models", "demo_predictions"]

#: (title, loader name in sklearn.datasets)
DEMO_DATASETS = (
    ("breast_cancer", "load_breast_cancer"),
    ("digits", "load_digits"),
)


def demo_models(random_state=0):
    """The demo classifiers, by name: a well calibrated, a naive and an ensemble model."""
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.linear_model import LogisticRegression
    from sklearn.naive_bayes import GaussianNB
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    return {
        "LogisticRegression": make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000)),
        "GaussianNB": GaussianNB(),
        "RandomForestClassifier": RandomForestClassifier(
            n_estimators=100, random_state=random_state, n_jobs=1
        ),
    }


def demo_predictions(random_state=0):
    """Fit the demo models and predict the test splits.

    Returns
    -------
    list of (title, y_test, dict of model name -> predict_proba(X_test))
    """
    import sklearn.datasets
    from sklearn.model_selection import train_test_split

    sections = []
    for title, loader in DEMO_DATASETS:
        X, y = getattr(sklearn.datasets, loader)(return_X_y=True)
        X_train, X_test, y_train, y_test = train_test_split(
            X, y, test_size=0.25, stratify=y, random_state=random_state
        )
        proba = {}
        for name, model in demo_models(random_state).items():
            model.fit(X_train, y_train)
            proba[name] = model.predict_proba(X_test)
        sections.append((title, y_test, proba))
    return sections
