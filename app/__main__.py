import sys

from app.main import run

sys.exit(run())
