" rwgraph rule and graph files (docs/editors.md). `.rules` also names udev and
" polkit files; those keep the filetype Vim gives them.
autocmd BufRead,BufNewFile *.graph set filetype=rwgraph
autocmd BufRead,BufNewFile *.rules
      \ if expand('<afile>:p') !~# '/\(udev\|polkit-1\)/' | set filetype=rwrules | endif
