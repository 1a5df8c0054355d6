import subprocess
import sys


def test_importing_skprivate_and_its_plotting_module_loads_no_matplotlib():
    # matplotlib is an optional dependency, imported only when a display draws.
    code = (
        "import sys, skprivate, skprivate.plotting, skprivate.accounting; "
        "from skprivate.plotting import PrivacyUtilityDisplay, PrivacyBudgetDisplay; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'matplotlib'))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "[]"
