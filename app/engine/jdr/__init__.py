"""JDR Express (Dracula and Cthulhu settings): rules of ../shared/rules/jdr-express.md."""
