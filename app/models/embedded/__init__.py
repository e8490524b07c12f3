"""The embedded demo model, as one plug-in: the local runtime, its chat template, the grammar its replies
are decoded under, and the host policies that make a 135M model useful (`plugin.py`)."""
