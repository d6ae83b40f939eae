"""What a run reports: metrics with intervals, breakdowns, cost, ``report.html``, comparisons and the viewer.

Reports read run records; they import no evaluation or transfer code.
"""
