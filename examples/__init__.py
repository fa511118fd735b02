"""Runnable examples of lightning_metrics (a package so that LightningCLI configs can name
``examples.digits.DigitsClassifier`` and friends in their ``class_path``)."""
