"""The course-tool outputs of a graded class, made from the per-submission results that
`labkit grade-all` writes (<out>/results/<name>.json, schema "labkit-result/1"): a gradebook CSV
for the LMS, Gradescope's results.json per submission, a JUnit XML file for CI dashboards, and a
feedback file per student.

Everything here reads finished result files only and writes through util.write_atomic, so that
`labkit gradebook` can run while a (Slurm) class run is still adding results, and a reader never
meets half a file.

What a submission wrote (an exception message, a compiler's output, a file name) is data in all
of them: capped and cleaned by reports.student_text, escaped for each format (Markdown and its
HTML in the feedback, summary.md and Gradescope's summary; CSV cells by reports.csv_text; XML by
ElementTree), and shown as plain text where Gradescope allows it (each test's output).

The package, one module a format: reading (the roster, the results), text (what every format
shares), csv_gradebook (gradebook.csv), gradescope_results, junit, feedback, summary (the
per-variant tables), and outputs (all of them written together; `labkit gradebook`). What the
rest of labkit uses is named here."""

from .csv_gradebook import COLLIDES, NO_SUBMISSION, SEVERAL, gradebook_csv, match_roster, naming_notes, row_notes, staging_exceptions
from .feedback import feedback_markdown
from .gradescope_results import gradescope_results, summary_markdown
from .junit import junit_xml
from .outputs import CLASS_FILES, cmd_gradebook, drop_class_outputs, submission_files, write_class_outputs
from .reading import SCHEMA, load_results, read_roster
from .summary import VARIANT_COLUMNS, class_rows, summary_tables, variant_rows

__all__ = ["CLASS_FILES", "COLLIDES", "NO_SUBMISSION", "SCHEMA", "SEVERAL", "VARIANT_COLUMNS", "class_rows", "cmd_gradebook",
           "drop_class_outputs", "feedback_markdown", "gradebook_csv", "gradescope_results", "junit_xml", "load_results",
           "match_roster", "naming_notes", "read_roster", "row_notes", "staging_exceptions", "submission_files",
           "summary_markdown", "summary_tables", "variant_rows", "write_class_outputs"]
